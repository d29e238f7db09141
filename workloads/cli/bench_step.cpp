// tpusim bench step: wall time and peak memory of simulating one timing-only training step of the paper's
// 4.9B language model, on the 512-core TPU v2 pod (preset lm-s5) and on the 2048-core TPU v3 pod (lm-s5-v3).
// Each case runs in a child process (one SimGrid engine per process), so its peak RSS is its own.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "topologies/support/child_process.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/training_run.hpp"

namespace tpusim::cli {
namespace {

struct BenchCase {
  std::string preset;
  std::string target;  // what the issue asks of it
};

// Runs the preset in a child (run_in_child); returns the child's figures plus wall time and peak RSS
// measured by the parent. A failure of the case is reported in the result, so the other case still runs.
nlohmann::json run_case(const BenchCase& bench) {
  nlohmann::json result;
  try {
    const ChildResult child = run_in_child([&] {
      const auto config = workloads::load_preset(bench.preset);
      const auto report = workloads::run_training(config);
      return nlohmann::json{{"step_time_s", report.timeline.step_time_s},
                            {"mfu", report.mfu},
                            {"parameters", report.parameters},
                            {"cores", config.mesh.num_cores()},
                            {"topology", config.hardware.topology.name()},
                            {"mesh", config.mesh.shape_text()},
                            {"collective_calls", report.collectives.size()},
                            {"timeline_entries", report.timeline.entries.size()},
                            {"memory_per_core_bytes", report.memory.total_bytes},
                            {"fits", report.memory.fits()}}
          .dump();
    });
    result = nlohmann::json::parse(child.output);
    result["wall_s"] = child.wall_s;
    result["peak_rss_bytes"] = static_cast<std::uint64_t>(child.peak_rss_mib * 1048576.0);
  } catch (const std::exception& error) {
    result = nlohmann::json{{"error", error.what()}};
  }
  result["preset"] = bench.preset;
  result["target"] = bench.target;
  return result;
}

}  // namespace

void add_bench_step(CLI::App& bench) {
  static bool json = false;
  static std::string only;
  auto* command = bench.add_subcommand(
      "step",
      "Wall time and peak memory of simulating one timing-only training step of the 4.9B language model: on "
      "tpu-v2-pod (512 cores, preset lm-s5; target < 10 s, < 1 GiB) and tpu-v3-pod (2048 cores, preset "
      "lm-s5-v3; target < 60 s). Each case runs in its own child process.");
  command->add_flag("--json", json, "Print one JSON object");
  command->add_option("--only", only, "Run one case: v2 or v3")->check(CLI::IsMember({"v2", "v3"}));
  command->callback([] {
    std::vector<BenchCase> cases;
    if (only.empty() || only == "v2") cases.push_back({"lm-s5", "< 10 s wall, < 1 GiB peak RSS"});
    if (only.empty() || only == "v3") cases.push_back({"lm-s5-v3", "< 60 s wall"});
    nlohmann::json runs = nlohmann::json::array();
    if (!json) {
      std::cout << fmt::format("{:<10} {:<11} {:>6} {:>10} {:>14} {:>8} {:>10} {:>12}  {}\n", "preset",
                               "topology", "cores", "wall", "peak RSS", "MFU", "step time", "collectives",
                               "target");
    }
    for (const auto& c : cases) {
      const auto result = run_case(c);
      runs.push_back(result);
      if (json) continue;
      if (result.contains("error")) {
        std::cout << fmt::format("{:<10} failed: {}\n", c.preset, result["error"].get<std::string>());
        continue;
      }
      std::cout << fmt::format(
                       "{:<10} {:<11} {:>6} {:>8.2f} s {:>10.1f} MiB {:>7.1f}% {:>8.4f} s {:>12}  {}\n",
                       c.preset, result["topology"].get<std::string>(), result["cores"].get<int>(),
                       result["wall_s"].get<double>(), result["peak_rss_bytes"].get<double>() / 1048576.0,
                       100 * result["mfu"].get<double>(), result["step_time_s"].get<double>(),
                       result["collective_calls"].get<int>(), c.target)
                << std::flush;
    }
    if (json) {
      std::cout << workloads::dump_report(workloads::with_report_context(
                       {{"runs", runs}}, workloads::format::kBenchStep, "bench step",
                       {{"only", workloads::input_or_null(only)}}))
                << "\n";
    }
    for (const auto& r : runs) {
      if (r.contains("error"))
        throw std::runtime_error("bench step: a case failed: " + r["error"].get<std::string>());
    }
  });
}

}  // namespace tpusim::cli
