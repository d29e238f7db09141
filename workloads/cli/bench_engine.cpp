// tpusim bench engine: the mesh-tensor engine's own cost on this machine. (1) Local matmul throughput of a
// numerics run against plain OpenBLAS sgemm on the same shapes; (2) wall time of lowering plus timing-only
// simulation of the 512-core two-layer example. Figures are printed, never judged.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "mesh_tf/graph.hpp"
#include "sim/simulator.hpp"
#include "topologies/presets.hpp"
#include "topologies/simulation_memory.hpp"
#include "topologies/support/units.hpp"
#include "workloads/bench/engine_bench.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/number_option.hpp"
#include "workloads/report/report_context.hpp"

namespace tpusim::cli {

void add_bench_engine(CLI::App& bench) {
  auto* engine = bench.add_subcommand(
      "engine", "Engine overhead: matmul efficiency vs OpenBLAS, 512-core lowering time");
  static std::int64_t batch = 1024, io = 1024, hidden = 4096;
  static int cores = 1, steps = 5;
  static std::string topology_spec = "tpu-v2-pod", mesh = "rows:16;cols:32", rules = "batch:rows;hidden:cols";
  static std::int64_t pod_batch = 8192, pod_io = 8192, pod_hidden = 65536;
  static bool json = false;
  // Each matrix of the matmul benchmark is held in memory: sizes up to 2^16 keep each under 16 GiB.
  constexpr std::int64_t kMaxSize = 65536;
  add_whole_number_option(engine, "--batch", batch, 1, kMaxSize, "Matmul benchmark: batch size")
      ->capture_default_str();
  add_whole_number_option(engine, "--io", io, 1, kMaxSize, "Matmul benchmark: d_io")->capture_default_str();
  add_whole_number_option(engine, "--hidden", hidden, 1, kMaxSize, "Matmul benchmark: d_hidden")
      ->capture_default_str();
  add_whole_number_option(engine, "--cores", cores, 1, topo::kMaxCores,
                          "Matmul benchmark: data-parallel virtual cores (batch:all)")
      ->capture_default_str();
  add_whole_number_option(engine, "--steps", steps, 1, 1000, "Matmul benchmark: timed steps")
      ->capture_default_str();
  engine->add_option("--topology", topology_spec, "Lowering benchmark: topology")->capture_default_str();
  engine->add_option("--mesh", mesh, "Lowering benchmark: mesh")->capture_default_str();
  engine->add_option("--layout", rules, "Lowering benchmark: layout rules")->capture_default_str();
  // The lowering benchmark's sizes are shapes only (nothing is allocated); the graph checks the product
  // against a tensor's limit, so each alone may be as large as that.
  constexpr std::int64_t kMaxPodSize = mtf::Graph::kMaxTensorElements;
  add_whole_number_option(engine, "--pod-batch", pod_batch, 1, kMaxPodSize, "Lowering benchmark: batch")
      ->capture_default_str();
  add_whole_number_option(engine, "--pod-io", pod_io, 1, kMaxPodSize, "Lowering benchmark: d_io")
      ->capture_default_str();
  add_whole_number_option(engine, "--pod-hidden", pod_hidden, 1, kMaxPodSize, "Lowering benchmark: d_hidden")
      ->capture_default_str();
  engine->add_flag("--json", json, "Print one JSON object");
  engine->callback([] {
    // The lowering benchmark first: it validates the topology, mesh and layout before the long matmul runs.
    const auto topology = topo::topology_from_spec(topology_spec);
    topo::require_simulation_fits(topology);
    sim::Simulator simulator(topology);
    const auto lowering = workloads::measure_lowering(simulator, pod_batch, pod_io, pod_hidden, mesh, rules);
    const auto matmul = workloads::measure_matmul_efficiency(batch, io, hidden, cores, steps);
    if (json) {
      nlohmann::json out = {{"matmul",
                             {{"batch", batch},
                              {"io", io},
                              {"hidden", hidden},
                              {"cores", cores},
                              {"steps", steps},
                              {"engine_einsum_s", matmul.engine_einsum_s},
                              {"engine_gflops", matmul.engine_gflops()},
                              {"blas_s", matmul.blas_s},
                              {"blas_gflops", matmul.blas_gflops()},
                              {"efficiency", matmul.efficiency()},
                              {"best_engine_einsum_s", matmul.best_engine_s},
                              {"best_blas_s", matmul.best_blas_s},
                              {"best_efficiency", matmul.best_efficiency()},
                              {"step_wall_s", matmul.step_wall_s}}},
                            {"lowering",
                             {{"topology", topology.name()},
                              {"mesh", mesh},
                              {"layout", rules},
                              {"mapping", lowering.mapping_note},
                              {"parameters", lowering.parameters},
                              {"lowering_s", lowering.lowering_s},
                              {"first_step_s", lowering.first_step_s},
                              {"repeat_step_s", lowering.repeat_step_s},
                              {"total_s", lowering.lowering_s + lowering.first_step_s},
                              {"collectives", lowering.collectives},
                              {"simulated_step_s", lowering.simulated_step_s},
                              {"simulated_comm_s", lowering.simulated_comm_s},
                              {"simulated_exposed_comm_s", lowering.simulated_exposed_comm_s}}}};
      const nlohmann::json inputs = {{"batch", batch},
                                     {"io", io},
                                     {"hidden", hidden},
                                     {"cores", cores},
                                     {"steps", steps},
                                     {"topology", topology_spec},
                                     {"mesh", mesh},
                                     {"layout", rules},
                                     {"pod_batch", pod_batch},
                                     {"pod_io", pod_io},
                                     {"pod_hidden", pod_hidden}};
      std::cout << workloads::dump_report(workloads::with_report_context(out, workloads::format::kBenchEngine,
                                                                         "bench engine", inputs))
                << "\n";
      return;
    }
    std::cout << fmt::format(
        "local matmuls: two-layer step batch {} io {} hidden {} on {} virtual core{}, {} steps\n", batch, io,
        hidden, cores, cores == 1 ? "" : "s", steps);
    std::cout << fmt::format("  engine einsum kernels  {:8.1f} GFLOP/s  ({:.3f} s)\n", matmul.engine_gflops(),
                             matmul.engine_einsum_s);
    std::cout << fmt::format("  plain OpenBLAS sgemm   {:8.1f} GFLOP/s  ({:.3f} s)\n", matmul.blas_gflops(),
                             matmul.blas_s);
    std::cout << fmt::format(
        "  efficiency             {:8.1f} %  (totals; steps alternate with the sgemm rounds)\n",
        100 * matmul.efficiency());
    std::cout << fmt::format(
        "  best-round efficiency  {:8.1f} %  (fastest step {:.3f} s vs fastest sgemm round {:.3f} s)\n",
        100 * matmul.best_efficiency(), matmul.best_engine_s, matmul.best_blas_s);
    std::cout << fmt::format("  whole numerics step    {}\n", format_duration(matmul.step_wall_s));
    std::cout << fmt::format(
        "lowering + timing-only simulation: two-layer training step, {:.3g} parameters\n",
        lowering.parameters);
    std::cout << fmt::format("  {} mesh {} layout {} ({})\n", topology.name(), mesh, rules,
                             lowering.mapping_note);
    std::cout << fmt::format("  lowering               {}\n", format_duration(lowering.lowering_s));
    std::cout << fmt::format("  first step (simulate)  {}  ({} collectives)\n",
                             format_duration(lowering.first_step_s), lowering.collectives);
    std::cout << fmt::format("  lowering + first step  {}\n",
                             format_duration(lowering.lowering_s + lowering.first_step_s));
    std::cout << fmt::format("  repeated step          {}\n", format_duration(lowering.repeat_step_s));
    std::cout << fmt::format(
        "  simulated step {}, comm {}, exposed comm {}\n", format_duration(lowering.simulated_step_s),
        format_duration(lowering.simulated_comm_s), format_duration(lowering.simulated_exposed_comm_s));
  });
}

}  // namespace tpusim::cli
