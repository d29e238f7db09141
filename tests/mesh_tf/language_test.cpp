#include <catch2/catch.hpp>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/mesh_shape.hpp"
#include "mesh_tf/tensor_layout.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;
using tpusim::InputError;

TEST_CASE("parses mesh shapes and layout rules") {
  const auto mesh = MeshShape::parse("rows:16;cols:32");
  CHECK(mesh.size() == 512);
  CHECK(mesh.rank() == 2);
  CHECK(mesh.dim_name(1) == "cols");
  CHECK(MeshShape::parse(mesh.to_string()).shape() == mesh.shape());
  const auto rules = LayoutRules::parse("batch:rows;hidden:cols");
  CHECK(rules.mesh_dim_for("batch") == std::optional<std::string>("rows"));
  CHECK(rules.mesh_dim_for("io") == std::nullopt);
  CHECK(rules.to_string() == "batch:rows;hidden:cols");
  CHECK(Shape::parse("batch:8,io:16") == Shape({{"batch", 8}, {"io", 16}}));
}

TEST_CASE("processor numbering is last mesh dim fastest and round-trips") {
  const auto mesh = MeshShape::parse("a:2;b:3;c:4");
  CHECK(mesh.processor_coords(1) == std::vector<int>{0, 0, 1});
  CHECK(mesh.processor_coords(4) == std::vector<int>{0, 1, 0});
  CHECK(mesh.processor_coords(12) == std::vector<int>{1, 0, 0});
  for (int p = 0; p < mesh.size(); ++p) CHECK(mesh.processor_index(mesh.processor_coords(p)) == p);
}

TEST_CASE("rejects bad dimensions shapes and rules with exact messages") {
  CHECK_THROWS_WITH(Dimension("batch", 0), "dimension 'batch' has size 0; sizes must be at least 1");
  CHECK_THROWS_WITH(Shape({{"a", 2}, {"a", 3}}),
                    "shape [a:2, a:3] names dimension 'a' twice; dimension names must be unique");
  CHECK_THROWS_WITH(
      LayoutRules::parse("batch:rows;batch:cols"),
      "layout rules split tensor dimension 'batch' over both 'rows' and 'cols'; a tensor dimension may "
      "be split over at most one mesh dimension");
  CHECK_THROWS_WITH(LayoutRules::parse("batch"),
                    "layout 'batch': 'batch' is not tensor_dim:mesh_dim (e.g. 'batch:rows;hidden:cols')");
  CHECK_THROWS_WITH(
      LayoutRules::parse("hidden:colz").check_against(MeshShape::parse("rows:2;cols:4")),
      "layout rule 'hidden:colz': mesh rows:2;cols:4 has no dimension 'colz' (did you mean 'cols'?)");
  CHECK_THROWS_AS(MeshShape::parse("rows:x"), InputError);
}

TEST_CASE("enforces layout legality naming tensor dimension and rule") {
  const auto mesh = MeshShape::parse("rows:2;cols:4");
  const Shape image{{"channels", 3}, {"width", 8}};
  CHECK_THROWS_WITH(
      TensorLayout::from_rules("x", image, mesh, LayoutRules::parse("channels:rows")),
      "tensor 'x': dimension 'channels' of size 3 cannot be split evenly over mesh dimension 'rows' of "
      "size 2");
  const Shape square{{"i", 4}, {"j", 4}};
  CHECK_THROWS_WITH(
      TensorLayout::from_rules("m", square, mesh, LayoutRules::parse("i:cols;j:cols")),
      "tensor 'm' of shape [i:4, j:4]: dimensions 'i' and 'j' are both split over mesh dimension 'cols'; "
      "a mesh dimension may split at most one dimension of a tensor");
  CHECK_THROWS_WITH(
      TensorLayout::from_rules("t", square, mesh, LayoutRules::parse("i:rows"), {"i"}),
      "tensor 't': dimension 'i' cannot be split (layout rule 'i:rows'): the operation producing or reading "
      "it works "
      "along that dimension (concat/split/slice/pad/cumsum axis); remove the rule or rename the dimension");
  const auto ok = TensorLayout::from_rules("w", square, mesh, LayoutRules::parse("i:cols"));
  CHECK(ok.slice_sizes() == std::vector<std::int64_t>{1, 4});
  CHECK(ok.to_string() == "[i:4 @cols, j:4]");
}

TEST_CASE("einsum rejects mismatched sizes and unknown dimensions") {
  Graph g;
  const Tensor x = g.input("x", Shape{{"batch", 4}, {"io", 8}});
  const Tensor w = g.variable("w", Shape{{"io", 6}, {"hidden", 8}}, Initializer::zeros());
  CHECK_THROWS_WITH(
      einsum({x, w}, Shape{{"batch", 4}, {"hidden", 8}}, "proj"),
      "einsum 'proj': inputs 'x' [batch:4, io:8] and 'w' [io:6, hidden:8] disagree: dimension 'io' has "
      "size 8 in [batch:4, io:8] but 6 in [io:6, hidden:8]");
  CHECK_THROWS_WITH(reduce_sum_over(x, {"hiden"}),
                    "tensor 'x' of shape [batch:4, io:8] has no dimension 'hiden'");
  CHECK_THROWS_WITH(einsum({x}, std::vector<std::string>{"batch", "iox"}),
                    "einsum '' inputs of shape [batch:4, io:8] has no dimension 'iox' (did you mean 'io'?)");
  CHECK_THROWS_WITH(g.input("x", Shape{}), "graph already has an input or variable called 'x'");
}
