// Layout invariance: every program of the battery gives the single-core result (forward and gradients) on
// every mesh and layout, with every collective simulated.
#include <catch2/catch.hpp>

#include "tests/mesh_tf/battery.hpp"
#include "tests/mesh_tf/sim_for_tests.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;

namespace {

std::vector<TestProgram> battery(int batch_scale) {
  std::vector<TestProgram> programs;
  programs.push_back(two_layer_mlp(batch_scale));
  programs.push_back(attention(batch_scale));
  programs.push_back(split_vocab_softmax(batch_scale));
  programs.push_back(moe_dispatch_program(batch_scale));
  programs.push_back(norm_shift_concat(batch_scale));
  programs.push_back(conv_net(batch_scale));
  return programs;
}

void check_invariance(const std::string& topology, const std::vector<std::string>& meshes,
                      int batch_scale = 1, std::size_t max_layouts = 100) {
  auto simulator = make_test_simulator(tpusim::topo::topology_from_spec(topology));
  for (auto& program : battery(batch_scale)) {
    const auto reference = run_program(program, MeshShape(), LayoutRules(), nullptr);
    for (const auto& mesh_text : meshes) {
      const auto mesh = MeshShape::parse(mesh_text);
      int ran = 0;
      for (std::size_t l = 0; l < program.layouts.size() && l < max_layouts; ++l) {
        const auto rules = rules_for(program.layouts[l], mesh);
        INFO(program.name << " on mesh " << mesh_text << " with layout " << rules.to_string());
        std::vector<std::vector<float>> distributed;
        try {
          distributed = run_program(program, mesh, rules, simulator.get());
        } catch (const tpusim::InputError& error) {
          // Layouts whose splits do not divide these sizes are skipped; the others must agree.
          if (std::string(error.what()).find("cannot be split evenly") != std::string::npos) continue;
          throw;
        }
        ++ran;
        CHECK(max_relative_error(distributed, reference) <= 1.0);
      }
      INFO(program.name << " on mesh " << mesh_text);
      CHECK(ran >= 1);
    }
  }
}

}  // namespace

TEST_CASE("battery is layout-invariant on 2 and 4 cores") {
  check_invariance("torus:2x2", {"a:4", "a:2;b:2", "a:1;b:4"});
}

TEST_CASE("battery is layout-invariant on 8 cores") {
  check_invariance("torus:2x4", {"a:8", "a:2;b:4", "a:4;b:2", "a:2;b:2;c:2"});
}

// Tiny models on the full pod: one slice per core, every collective simulated on 512 cores.
TEST_CASE("battery is layout-invariant on a 512-core pod") {
  auto simulator = make_test_simulator(tpusim::topo::preset("tpu-v2-pod"));
  struct Case {
    int program;
    std::string mesh, layout;
  };
  const std::vector<Case> cases = {{0, "a:16;b:32", "batch:a;hidden:b"},
                                   {0, "a:8;b:8;c:8", "batch:a;hidden:b;io:c"},
                                   {1, "a:8;b:64", "batch:a"},
                                   {2, "a:16;b:32", "batch:a;vocab:b"},
                                   {2, "a:16;b:32", "d_model:a;vocab:b"},
                                   {3, "a:8;b:64", "group:a;experts:a"},
                                   {4, "a:16;b:32", "batch:a"},
                                   {5, "a:8;b:8;c:8", "batch:a;h:b;mid:c"}};
  auto programs = battery(4);  // batch 32, attention batch 8, moe groups 32, norm batch 16, conv batch 8
  std::vector<std::vector<std::vector<float>>> references;
  for (auto& program : programs)
    references.push_back(run_program(program, MeshShape(), LayoutRules(), nullptr));
  for (const auto& c : cases) {
    const auto mesh = MeshShape::parse(c.mesh);
    const auto rules = rules_for(c.layout, mesh);
    INFO(programs[c.program].name << " on mesh " << c.mesh << " with layout " << rules.to_string());
    const auto distributed = run_program(programs[c.program], mesh, rules, simulator.get());
    CHECK(max_relative_error(distributed, references[c.program]) <= 1.0);
  }
}
