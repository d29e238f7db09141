// The search space against candidates listed by hand, its counts, and its candidates as configs.
#include "workloads/search/search_space.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "tests/workloads/search/search_fixtures.hpp"
#include "workloads/config/config_parser.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

std::set<std::string> meshes_and_layouts(const SearchSpace& space) {
  std::set<std::string> out;
  for (const auto& c : space.enumerate()) out.insert(c.mesh_shape + " " + c.layout);
  return out;
}

}  // namespace

TEST_CASE("the space of two dimensions on 8 cores is the five meshes and layouts worked out by hand") {
  // 8 cores: the mesh 8, or 2x4 and 4x2. batch and d_ff each on one axis or none, every axis used: on one
  // axis, batch alone, d_ff alone, or both; on two axes, one each, and 2x4 with batch on the 4 is 4x2 with
  // batch on the 4.
  const SearchInput input = test::ring8_input("  layout_dims: [batch, d_ff]\n");
  const SearchSpace space(input.base, input.spec);
  CHECK(meshes_and_layouts(space) == std::set<std::string>{"batch:8 batch:batch", "model:8 d_ff:model",
                                                           "batch:8 batch:batch;d_ff:batch",
                                                           "batch:2;model:4 batch:batch;d_ff:model",
                                                           "batch:4;model:2 batch:batch;d_ff:model"});
  CHECK(space.size() == 5);
}

TEST_CASE("mappings and per-axis algorithms multiply the space: mappings x algorithms ^ axes per mesh") {
  const SearchInput input = test::ring8_input(
      "  layout_dims: [batch, d_ff]\n  mappings: [rings, linear]\n  algorithms: [default, ring]\n");
  const SearchSpace space(input.base, input.spec);
  // Three one-axis candidates x 2 mappings x 2 algorithms, two two-axis ones x 2 x 2^2.
  CHECK(space.size() == 3 * 2 * 2 + 2 * 2 * 4);
  const std::vector<Candidate> all = space.enumerate();
  std::set<std::string> keys;
  for (const auto& c : all) keys.insert(c.key());
  CHECK(keys.size() == all.size());
  CHECK(keys.count("batch:2;model:4|batch:batch;d_ff:model|linear|batch=ring;model=default") == 1);
  CHECK(keys.count("model:8|d_ff:model|rings|default") == 1);
  // The first candidates alone, as a search limited to them takes them.
  const std::vector<Candidate> first = space.enumerate(7);
  REQUIRE(first.size() == 7);
  for (std::size_t i = 0; i < first.size(); ++i) CHECK(first[i].key() == all[i].key());
}

TEST_CASE("pins and listed meshes keep only the candidates that have them") {
  const SearchSpace pinned(
      test::ring8_input("  layout_dims: [batch, d_ff]\n  pin_layout: d_ff:model\n").base,
      test::ring8_input("  layout_dims: [batch, d_ff]\n  pin_layout: d_ff:model\n").spec);
  CHECK(meshes_and_layouts(pinned) == std::set<std::string>{"model:8 d_ff:model",
                                                            "batch:2;model:4 batch:batch;d_ff:model",
                                                            "batch:4;model:2 batch:batch;d_ff:model"});
  const SearchInput listed = test::ring8_input("  layout_dims: [batch, d_ff]\n  mesh_shapes: [batch:8]\n");
  CHECK(meshes_and_layouts(SearchSpace(listed.base, listed.spec)) ==
        std::set<std::string>{"batch:8 batch:batch", "batch:8 batch:batch;d_ff:batch"});
}

TEST_CASE("three mesh dimensions add the 2x2x2 mesh, its axes named by role") {
  const SearchInput input = test::ring8_input("  mesh_dims: 3\n  layout_dims: [batch, d_ff, heads]\n");
  const SearchSpace space(input.base, input.spec);
  const auto all = meshes_and_layouts(space);
  CHECK(all.count("batch:2;model:2;model2:2 batch:batch;d_ff:model;heads:model2") == 1);
  CHECK(all.count("batch:2;model:4 batch:batch;d_ff:model;heads:model") == 1);
  // Three model axes would need three dimensions besides the batch.
  for (const auto& c : space.enumerate()) CHECK(c.mesh_shape.find("model3") == std::string::npos);
}

TEST_CASE("random states and neighbours stand for candidates, and a neighbour is another candidate") {
  const SearchInput input = test::lm32_input("  algorithms: [default, ring]\n");
  const SearchSpace space(input.base, input.spec);
  std::mt19937_64 a(5), b(5);
  for (int i = 0; i < 200; ++i) {
    const SearchState s = space.random_state(a);
    REQUIRE(space.candidate(s));
    CHECK(space.candidate(space.random_state(b))->key() == space.candidate(s)->key());  // seeded
    const SearchState n = space.neighbour(s, a);
    space.neighbour(s, b);
    REQUIRE(space.candidate(n));
    CHECK(space.candidate(n)->key() != space.candidate(s)->key());
  }
}

TEST_CASE("the config's own mesh and layout are found in the space, in any rule order") {
  const SearchInput input = test::lm32_input();
  const SearchSpace space(input.base, input.spec);
  const auto state =
      space.state_of("batch:8;model:4", "heads:model;batch:batch;vocab:model;d_ff:model", "rings");
  REQUIRE(state);
  CHECK(space.candidate(*state)->layout == "batch:batch;vocab:model;d_ff:model;heads:model");
  CHECK_FALSE(
      space.state_of("batch:8;model:4", "batch:batch", "linear"));  // linear is not among the mappings
}

TEST_CASE("a candidate's config is the base config with the candidate's mesh and algorithms") {
  const SearchInput input = test::lm32_input("  algorithms: [default, ring]\n");
  Candidate c;
  c.mesh_shape = "batch:4;model:8";
  c.layout = "batch:batch;d_ff:model";
  c.mapping = "linear";
  c.algorithms = {{"batch", "ring"}, {"model", kDefaultAlgorithm}};
  const RunConfig config = parse_run_config(candidate_config_yaml(input.base_yaml, c), "candidate");
  CHECK(config.mesh.shape_text() == "batch:4;model:8");
  CHECK(config.mesh.layout_text() == "batch:batch;d_ff:model");
  CHECK(config.mesh.mapping.to_string() == "linear");
  CHECK(config.hardware.collective_algorithm_by_axis ==
        std::map<std::string, std::string>{{"batch", "ring"}});
  CHECK(config.model.d_ff == input.base.model.d_ff);
  CHECK(config.hardware.topology.name() == "tpu-v2-32");
}

TEST_CASE("explicit mappings are every assignment of the pod's axes, worked out by hand") {
  // tpu-v2-32: core 2, x 4, y 4. batch:8 takes core and one of x, y in either order, model:4 the other.
  const SearchInput input = test::lm32_input(
      "  layout_dims: [batch, d_ff]\n  mappings: [explicit]\n  mesh_shapes: [batch:8;model:4, model:32]\n");
  const SearchSpace space(input.base, input.spec);
  std::set<std::string> two_axes, one_axis;
  for (const auto& c : space.enumerate()) {
    if (c.mesh_shape == "batch:8;model:4") two_axes.insert(c.mapping);
    if (c.mesh_shape == "model:32") one_axis.insert(c.mapping);
  }
  CHECK(two_axes == std::set<std::string>{"batch=core+x;model=y", "batch=x+core;model=y",
                                          "batch=core+y;model=x", "batch=y+core;model=x"});
  // The three axes in their six orders.
  CHECK(one_axis == std::set<std::string>{"model=core+x+y", "model=core+y+x", "model=x+core+y",
                                          "model=x+y+core", "model=y+core+x", "model=y+x+core"});
  // batch:8;model:4 has one layout with both axes used; model:32 one (d_ff alone); batch:8 is not listed.
  CHECK(space.size() == 4 + 6);
}
