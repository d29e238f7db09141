// tpusim bench sweep: what running a study costs besides its simulations. Three cases, each in a child
// process of its own (which is the sweep's parent, forking a child per point):
//   training     100 timing-only training steps of the 4.9B LM on the 512-core pod over five mesh shapes,
//                -j 2: the wall time (the target: under 30 s on a 2-core machine)
//   overhead     what a point costs besides its simulation: a process (fork to exit of an empty child), its
//                config (parsing and resolving a sweep, per point), its record (written whole), and the
//                whole of a tiny point end to end
//   collectives  a 10,000-point collective study: the wall time per point of the first and the last 1000
//                (constant if nothing grows with the points) and the parent's peak RSS after the first
//                1000 and at the end (flat if it keeps no per-point state)
// Figures are printed, never judged.
#include <fmt/format.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "topologies/support/child_process.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/number_option.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/sweep/child_pool.hpp"
#include "workloads/sweep/record_folder.hpp"
#include "workloads/sweep/study.hpp"
#include "workloads/sweep/study_runner.hpp"

namespace tpusim::cli {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// VmHWM of this process: its peak resident set so far.
double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

// A folder of its own under the system's temporary folder, removed with the object.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern = (fs::temp_directory_path() / "tpusim-bench-sweep-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

workloads::StudyRunTotals run_yaml(const ScratchFolder& scratch, const std::string& yaml, int jobs,
                                   const std::function<void(std::size_t)>& on_point = {}) {
  auto study = workloads::parse_study(yaml, scratch.file("bench.yaml"));
  study->set_output_dir(scratch.file("out"));
  workloads::StudyRunOptions options;
  options.jobs = jobs;
  options.on_point = on_point;
  return workloads::run_study(*study, options);
}

std::string training_yaml() {
  std::string seeds;
  for (int s = 1; s <= 20; ++s) seeds += (s == 1 ? "" : ", ") + std::to_string(s);
  return "name: bench-training\nbase: lm-s5\nvary:\n"
         "  mesh.shape: [batch:64;model:8, batch:32;model:16, batch:16;model:32, batch:8;model:64, "
         "batch:4;model:128]\n"
         "  training.seed: [" +
         seeds + "]\n";
}

nlohmann::json bench_training(int jobs) {
  const ScratchFolder scratch;
  const auto started = Clock::now();
  const auto totals = run_yaml(scratch, training_yaml(), jobs);
  const double wall = seconds_since(started);
  return {{"points", totals.rows},
          {"failed", totals.failed},
          {"jobs", jobs},
          {"wall_s", wall},
          {"per_point_s", wall / static_cast<double>(totals.rows)},
          {"parent_peak_rss_mib", peak_rss_mib()}};
}

nlohmann::json bench_overhead() {
  constexpr int kPoints = 200;
  const ScratchFolder scratch;
  // A process: fork, an empty result through the pipe, exit, reaped.
  auto started = Clock::now();
  {
    workloads::ChildPool pool(1);
    for (int i = 0; i < kPoints; ++i) {
      pool.start(static_cast<std::size_t>(i), [] { return std::string("{}"); });
      while (!pool.wait(1.0)) {
      }
    }
  }
  const double process_s = seconds_since(started) / kPoints;
  // A config: a sweep of tiny points parsed and every point resolved.
  std::string seeds;
  for (int s = 1; s <= kPoints; ++s) seeds += (s == 1 ? "" : ", ") + std::to_string(s);
  const std::string yaml =
      "name: bench-tiny\nbase: tiny-mlp\nvary:\n  training.numerics: [timing]\n"
      "  training.steps: [1]\n  training.seed: [" +
      seeds + "]\n";
  started = Clock::now();
  auto study = workloads::parse_study(yaml, scratch.file("bench.yaml"));
  const double config_s = seconds_since(started) / kPoints;
  // A record, written whole.
  workloads::RecordFolder records(scratch.file("records"));
  started = Clock::now();
  for (int i = 0; i < kPoints; ++i) {
    records.write({{"point", i}, {"hash", "0123456789abcdef"}, {"status", "ok"}, {"csv", {i, 1.5, "x"}}});
  }
  const double record_s = seconds_since(started) / kPoints;
  // The whole of a tiny point, one at a time.
  started = Clock::now();
  const auto totals = run_yaml(scratch, yaml, 1);
  const double tiny_s = seconds_since(started) / static_cast<double>(totals.rows);
  return {{"points", kPoints},    {"process_s", process_s}, {"config_s", config_s},
          {"record_s", record_s}, {"tiny_point_s", tiny_s}, {"tiny_failed", totals.failed}};
}

std::string collectives_yaml() {
  std::string sizes;
  for (int i = 1; i <= 1250; ++i) sizes += (i == 1 ? "" : ", ") + std::to_string(4096 * i);
  return "name: bench-collectives\nkind: collectives\nvary:\n"
         "  hardware.topology: [torus:2x2, torus:4x2, ring:8, \"torus:2x2,cores=2\"]\n"
         "  collective.algorithm: [ring, bidir_ring]\n"
         "  collective.bytes: [" +
         sizes + "]\n";
}

nlohmann::json bench_collectives(int jobs) {
  const ScratchFolder scratch;
  std::vector<double> finished;
  double rss_after_first = 0;
  const auto started = Clock::now();
  const auto totals = run_yaml(scratch, collectives_yaml(), jobs, [&](std::size_t) {
    finished.push_back(seconds_since(started));
    if (finished.size() == 1000) rss_after_first = peak_rss_mib();
  });
  const double wall = seconds_since(started);
  const std::size_t n = finished.size();
  const double first = n >= 1000 ? finished[999] / 1000 : 0;
  const double last = n >= 2000 ? (finished[n - 1] - finished[n - 1001]) / 1000 : 0;
  return {{"points", totals.rows},
          {"failed", totals.failed},
          {"jobs", jobs},
          {"wall_s", wall},
          {"first_1000_per_point_s", first},
          {"last_1000_per_point_s", last},
          {"parent_peak_rss_after_1000_mib", rss_after_first},
          {"parent_peak_rss_mib", peak_rss_mib()}};
}

nlohmann::json in_child(const std::function<nlohmann::json()>& work) {
  try {
    const auto child = run_in_child([&] { return work().dump(); });
    auto result = nlohmann::json::parse(child.output);
    result["case_wall_s"] = child.wall_s;
    return result;
  } catch (const std::exception& error) {
    return {{"error", error.what()}};
  }
}

void print(const std::string& name, const nlohmann::json& r) {
  if (r.contains("error")) {
    std::cout << fmt::format("{:<12} failed: {}\n", name, r["error"].get<std::string>());
  } else if (name == "training") {
    std::cout << fmt::format(
        "training     {} points of lm-s5 (512 cores, timing only), -j {}: {:.1f} s, "
        "{:.3f} s per point; parent peak RSS {:.1f} MiB (target: < 30 s)\n",
        r["points"].get<int>(), r["jobs"].get<int>(), r["wall_s"].get<double>(),
        r["per_point_s"].get<double>(), r["parent_peak_rss_mib"].get<double>());
  } else if (name == "overhead") {
    std::cout << fmt::format(
        "overhead     per point: process {:.2f} ms, config {:.2f} ms, record {:.3f} ms; a "
        "tiny point end to end (-j 1) {:.1f} ms\n",
        1e3 * r["process_s"].get<double>(), 1e3 * r["config_s"].get<double>(),
        1e3 * r["record_s"].get<double>(), 1e3 * r["tiny_point_s"].get<double>());
  } else {
    std::cout << fmt::format(
        "collectives  {} points, -j {}: {:.1f} s; per point {:.2f} ms (first 1000), {:.2f} "
        "ms (last 1000); parent peak RSS {:.1f} MiB after 1000, {:.1f} MiB at the end\n",
        r["points"].get<int>(), r["jobs"].get<int>(), r["wall_s"].get<double>(),
        1e3 * r["first_1000_per_point_s"].get<double>(), 1e3 * r["last_1000_per_point_s"].get<double>(),
        r["parent_peak_rss_after_1000_mib"].get<double>(), r["parent_peak_rss_mib"].get<double>());
  }
  std::cout << std::flush;
}

}  // namespace

void add_bench_sweep(CLI::App& bench) {
  static bool json = false;
  static std::string only;
  static int jobs = 2;
  auto* command = bench.add_subcommand(
      "sweep",
      "What running a study costs besides its simulations: 100 timing-only 512-core training steps over five "
      "mesh shapes (-j 2; target < 30 s), the per-point overhead (process, config, record) on tiny points, "
      "and a 10,000-point collective study (time per point of the first and last 1000, the parent's peak "
      "RSS). Each case runs in its own child process.");
  command->add_flag("--json", json, "Print one JSON object");
  command->add_option("--only", only, "Run one case: training, overhead or collectives")
      ->check(CLI::IsMember({"training", "overhead", "collectives"}));
  add_whole_number_option(command, "-j,--jobs", jobs, 1, 1024, "Points at once (training and collectives)")
      ->capture_default_str();
  command->callback([] {
    nlohmann::json runs = nlohmann::json::object();
    for (const std::string name : {"training", "overhead", "collectives"}) {
      if (!only.empty() && only != name) continue;
      const auto result = in_child([&name] {
        if (name == "training") return bench_training(jobs);
        if (name == "overhead") return bench_overhead();
        return bench_collectives(jobs);
      });
      runs[name] = result;
      if (!json) print(name, result);
    }
    if (json) {
      std::cout << workloads::dump_report(workloads::with_report_context(
                       {{"cases", runs}}, workloads::format::kBenchSweep, "bench sweep",
                       {{"only", workloads::input_or_null(only)}, {"jobs", jobs}}))
                << "\n";
    }
    for (const auto& [name, r] : runs.items()) {
      if (r.contains("error"))
        throw std::runtime_error("bench sweep: " + name + " failed: " + r["error"].get<std::string>());
    }
  });
}

}  // namespace tpusim::cli
