// Bad programs and layouts are InputErrors with clear messages, never crashes.
#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "tests/mesh_tf/two_layer.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;

TEST_CASE("illegal layouts of a program are reported at lowering") {
  auto t = two_layer_example(6, 8, 8);
  CHECK_THROWS_WITH(
      Executor(*t.graph, MeshShape::parse("rows:4"), LayoutRules::parse("batch:rows"), nullptr),
      "tensor 'x': dimension 'batch' of size 6 cannot be split evenly over mesh dimension 'rows' of size 4");
  CHECK_THROWS_WITH(
      Executor(*t.graph, MeshShape::parse("rows:2"), LayoutRules::parse("batch:rows;io:rows"), nullptr),
      "tensor 'x' of shape [batch:6, io:8]: dimensions 'batch' and 'io' are both split over mesh "
      "dimension 'rows'; a mesh dimension may split at most one dimension of a tensor");
  CHECK_THROWS_WITH(Executor(*t.graph, MeshShape::parse("rows:2"), LayoutRules::parse("batch:cols"), nullptr),
                    "layout rule 'batch:cols': mesh rows:2 has no dimension 'cols' (did you mean 'rows'?)");
}

TEST_CASE("splitting the axis of a concat is rejected") {
  Graph g;
  const Tensor a = g.input("a", Shape{{"length", 4}, {"d", 2}});
  const Tensor b = g.input("b", Shape{{"length", 4}, {"d", 2}});
  concat({a, b}, "length");
  CHECK_THROWS_WITH(
      Executor(g, MeshShape::parse("m:2"), LayoutRules::parse("length:m"), nullptr),
      "tensor 'a': dimension 'length' cannot be split (layout rule 'length:m'): the operation producing "
      "or reading it works along that dimension (concat/split/slice/pad/cumsum axis); remove the rule "
      "or rename the dimension");
}

TEST_CASE("feeding and running check their arguments") {
  auto t = two_layer_example(4, 8, 8);
  Executor executor(*t.graph, MeshShape::parse("rows:2"), LayoutRules::parse("batch:rows"), nullptr);
  CHECK_THROWS_WITH(executor.feed(t.x, std::vector<float>(3)),
                    "feed 'x': got 3 values but shape [batch:4, io:8] has 32");
  CHECK_THROWS_WITH(executor.feed(t.w, std::vector<float>(64)), "feed: 'w' is not an input");
  CHECK_THROWS_WITH(executor.run({t.y}), "run: input 'x' was not fed");
  CHECK_THROWS_WITH(t.graph->find("dyy"), "graph has no tensor called 'dyy' (did you mean 'dy'?)");
}

TEST_CASE("shape errors in op builders name the op and tensors") {
  Graph g;
  const Tensor a = g.input("a", Shape{{"i", 4}});
  const Tensor b = g.input("b", Shape{{"i", 5}});
  CHECK_THROWS_WITH(add(a, b, "sum"),
                    "add 'sum' of 'a' and 'b': dimension 'i' has size 4 in [i:4] but 5 in [i:5]");
  CHECK_THROWS_WITH(reshape(a, Shape{{"j", 3}}),
                    "reshape '': 'a' [i:4] has 4 elements but the new shape [j:3] has 3");
  CHECK_THROWS_WITH(shift(a, "i", 4), "shift '': offset 4 along 'i' of size 4 must be smaller than the size");
}

TEST_CASE("shapes, meshes and tensors whose element count overflows are rejected") {
  // Found by fuzzing MeshShape::parse: the product of the sizes wrapped around int64.
  CHECK_THROWS_WITH(
      MeshShape::parse("a:4444444444444444432;b:6666666"),
      "mesh 'a:4444444444444444432;b:6666666': shape [a:4444444444444444432, b:6666666] has more "
      "elements than a 64-bit count holds; expected e.g. 'rows:16;cols:32'");
  const std::int64_t big = std::int64_t(1) << 20;
  Graph g;
  const Tensor x = g.input("x", Shape{Dimension("i", big)});
  const Tensor y = g.input("y", Shape{Dimension("j", big)});
  CHECK(einsum({x, y}, Shape{Dimension("i", big), Dimension("j", big)}).shape().num_elements() ==
        Graph::kMaxTensorElements);
  CHECK_THROWS_WITH(
      einsum({x, y}, Shape{Dimension("i", big), Dimension("j", big), Dimension("k", 2)}, "outer"),
      "einsum 'outer': its output [i:1048576, j:1048576, k:2] would have 2199023255552 elements, "
      "more than the 1099511627776 (2^40) a tensor may have");
}
