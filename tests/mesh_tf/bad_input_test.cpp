// Bad programs and layouts are InputErrors with clear messages, never crashes.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>

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
  // The logical size (whole pod) may reach 2^48 elements: nothing of that size is materialised.
  const std::int64_t big = std::int64_t(1) << 24;
  Graph g;
  const Tensor x = g.input("x", Shape{Dimension("i", big)});
  const Tensor y = g.input("y", Shape{Dimension("j", big)});
  CHECK(einsum({x, y}, Shape{Dimension("i", big), Dimension("j", big)}).shape().num_elements() ==
        Graph::kMaxTensorElements);
  CHECK(Graph::kMaxTensorElements == big * big);
  CHECK_THROWS_WITH(
      einsum({x, y}, Shape{Dimension("i", big), Dimension("j", big), Dimension("k", 2)}, "outer"),
      "einsum 'outer': its output [i:16777216, j:16777216, k:2] would have 562949953421312 elements, "
      "more than the 281474976710656 (2^48) a tensor may have on the whole pod");
}

namespace {

// A [i, j] outer product of 2^21 x 2^21 = 2^42 elements on a mesh of `mesh`, laid out by `rules`, lowered for
// timing only (no simulator, no data).
void bad_input_lower_outer_product(const std::string& mesh, const std::string& rules) {
  const std::int64_t n = std::int64_t(1) << 21;
  Graph g;
  const Tensor x = g.input("x", Shape{Dimension("i", n)});
  const Tensor y = g.input("y", Shape{Dimension("j", n)});
  const Tensor outer = einsum({x, y}, Shape{Dimension("i", n), Dimension("j", n)}, "outer");
  ExecutionOptions options;
  options.numerics = false;
  options.outputs = {outer};
  const Executor executor(g, MeshShape::parse(mesh), LayoutRules::parse(rules), nullptr, options);
}

}  // namespace

TEST_CASE("what a core holds is bounded, not the tensor's logical size") {
  // 2^42 elements over 4 processors: a slice of 2^40 on each, the most a core may hold; it lowers.
  CHECK_NOTHROW(bad_input_lower_outer_product("a:4", "i:a"));
  CHECK_NOTHROW(bad_input_lower_outer_product("a:2;b:2", "i:a;j:b"));
  // Over 2 processors each would hold 2^41 elements; unsplit, 2^42.
  CHECK_THROWS_WITH(bad_input_lower_outer_product("a:2", "i:a"),
                    "tensor 'outer' [i:2097152, j:2097152]: its slice on each core [i:1048576, j:2097152] would "
                    "have 2199023255552 elements, more than the 1099511627776 (2^40) a core may hold; split it "
                    "over more mesh dimensions");
  CHECK_THROWS_WITH(bad_input_lower_outer_product("a:4", "k:a"),
                    "tensor 'outer' [i:2097152, j:2097152]: its slice on each core [i:2097152, j:2097152] would "
                    "have 4398046511104 elements, more than the 1099511627776 (2^40) a core may hold; split it "
                    "over more mesh dimensions");
  // Random splits of a 2^42-element tensor over a mesh of 2^p x 2^q processors: lowered if and only if the
  // slice (2^42 / the product of the splitting mesh dims) is at most 2^40.
  std::mt19937 rng(Catch::rngSeed());
  for (int trial = 0; trial < 6; ++trial) {
    const int p = std::uniform_int_distribution<int>(0, 3)(rng), q = std::uniform_int_distribution<int>(0, 3)(rng);
    const bool split_j = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    const std::string mesh = fmt::format("a:{};b:{}", 1 << p, 1 << q);
    const std::string rules = split_j ? "i:a;j:b" : "i:a";
    const int split_log2 = p + (split_j ? q : 0);
    INFO(mesh << " " << rules);
    if (42 - split_log2 <= 40) {
      CHECK_NOTHROW(bad_input_lower_outer_product(mesh, rules));
    } else {
      CHECK_THROWS_AS(bad_input_lower_outer_product(mesh, rules), tpusim::InputError);
    }
  }
}
