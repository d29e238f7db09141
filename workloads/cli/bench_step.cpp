// tpusim bench step: wall time and peak memory of simulating one timing-only training step of the paper's
// 4.9B language model, on the 512-core TPU v2 pod (preset lm-s5) and on the 2048-core TPU v3 pod (lm-s5-v3).
// Each case runs in a child process (one SimGrid engine per process), so its peak RSS is its own (wait4).
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "workloads/cli/command.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/training_run.hpp"

namespace tpusim::cli {
namespace {

struct BenchCase {
  std::string preset;
  std::string target;  // what the issue asks of it
};

// Runs the preset in a child; returns the child's figures plus wall time and peak RSS measured by the parent.
nlohmann::json run_case(const BenchCase& bench) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("bench step: pipe() failed");
  std::cout << std::flush;
  std::fflush(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("bench step: fork() failed");
  if (pid == 0) {
    close(pipe_fds[0]);
    int status = 0;
    std::string text;
    try {
      const auto config = workloads::load_preset(bench.preset);
      const auto report = workloads::run_training(config);
      text = nlohmann::json{{"step_time_s", report.timeline.step_time_s},
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
    } catch (const std::exception& error) {
      text = nlohmann::json{{"error", error.what()}}.dump();
      status = 1;
    }
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(pipe_fds[1], text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += static_cast<std::size_t>(n);
    }
    close(pipe_fds[1]);
    _exit(status);
  }
  close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid) throw std::runtime_error("bench step: wait4() failed");
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  nlohmann::json result =
      text.empty() ? nlohmann::json{{"error", "the child process died"}} : nlohmann::json::parse(text);
  result["preset"] = bench.preset;
  result["target"] = bench.target;
  result["wall_s"] = wall_s;
  result["peak_rss_bytes"] = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
  result["exit_status"] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
    if (json)
      std::cout << nlohmann::json{{"context", {{"benchmark", "step"}}}, {"runs", runs}}.dump(2) << "\n";
    for (const auto& r : runs) {
      if (r.contains("error"))
        throw std::runtime_error("bench step: a case failed: " + r["error"].get<std::string>());
    }
  });
}

}  // namespace tpusim::cli
