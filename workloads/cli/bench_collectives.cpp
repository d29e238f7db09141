// tpusim bench collectives: wall time and peak memory of simulating the collectives of the performance
// targets, each point in its own child process (one SimGrid engine per process; the peak resident set is the
// child's). The figures are printed, never judged: benchmarks do not pass or fail.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sim/simulator.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/units.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/collectives/request_builder.hpp"
#include "workloads/report/report_context.hpp"

namespace tpusim::cli {
namespace {

struct BenchPoint {
  const char* name;
  const char* topology;
  const char* algorithm;
  const char* bytes;
};

// 4096 cores: a 32x64 torus of two-core chips (twice a TPU v3 pod), one ring through all cores in snake
// order.
const std::vector<BenchPoint> kPoints = {
    {"bucket2d-512", "tpu-v2-pod", "bucket2d", "64MiB"},
    {"bucket2d-2048", "tpu-v3-pod", "bucket2d", "64MiB"},
    {"bidir_ring-4096", "torus:32x64,cores=2", "bidir_ring", "64MiB"},
    // 65,536 chips (issue 30's scale target): a 4 KiB ring leaves every chunk 0 or 1 element, which folds
    // only a period of rounds at a time (sim/round_history.hpp); 64 MiB folds round by round.
    {"bidir_ring-65536-4KiB", "torus:64x32x32", "bidir_ring", "4KiB"},
    {"bidir_ring-65536", "torus:64x32x32", "bidir_ring", "64MiB"},
};

// In the child: everything a user waits for, from parsing the topology to the simulated result.
std::string run_point(const BenchPoint& point) {
  const auto started = std::chrono::steady_clock::now();
  const auto topology = topo::topology_from_spec(point.topology);
  workloads::CollectiveSpec spec;
  spec.algorithms = point.algorithm;
  spec.bytes = point.bytes;
  const auto built = workloads::build_request(topology, spec);
  sim::Simulator simulator(topology);
  const auto result = simulator.run(built.request);
  const double inside_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return nlohmann::json{{"cores", topology.num_cores()},
                        {"group_axes", built.group_axes},
                        {"simulated_s", result.time_s},
                        {"messages", result.messages},
                        {"simulated_messages", result.simulated_messages},
                        {"folded_rounds", result.folded_rounds},
                        {"inside_s", inside_s}}
      .dump();
}

}  // namespace

void add_bench_collectives(CLI::App& bench) {
  static bool json = false;
  auto* command =
      bench.add_subcommand("collectives", "Wall time and peak memory of large simulated allreduces");
  command->add_flag("--json", json, "Print one JSON object");
  command->callback([] {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& point : kPoints) {
      const auto child = run_in_child([&point] { return run_point(point); });
      auto run = nlohmann::json::parse(child.output);
      run["name"] = point.name;
      run["topology"] = point.topology;
      run["algorithm"] = point.algorithm;
      run["bytes"] = point.bytes;
      run["wall_s"] = child.wall_s;
      run["peak_rss_mib"] = child.peak_rss_mib;
      runs.push_back(run);
      if (!json) {
        std::cout << fmt::format(
            "{:<21} {:<20} {:>5} cores  {:>8}  simulated {:>10}  wall {:>7.3f} s  peak {:>7.1f} MiB  "
            "messages {} ({} simulated, {} rounds folded)\n",
            point.name, point.topology, run["cores"].get<int>(), point.bytes,
            format_duration(run["simulated_s"].get<double>()), child.wall_s, child.peak_rss_mib,
            run["messages"].get<std::uint64_t>(), run["simulated_messages"].get<std::uint64_t>(),
            run["folded_rounds"].get<std::uint64_t>());
        std::cout.flush();
      }
    }
    if (json) {
      std::cout << workloads::dump_report(workloads::with_report_context(
                       {{"network", "ideal"}, {"runs", runs}}, workloads::format::kBenchCollectives,
                       "bench collectives"))
                << "\n";
    }
  });
}

}  // namespace tpusim::cli
