// The files a run writes: complete, valid, with the documented columns; and nothing partial on failure.
#include "workloads/report/result_files.hpp"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim::workloads;
using tpusim::write_file_atomically;
namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path fresh_folder(const std::string& name) {
  const fs::path folder =
      fs::temp_directory_path() / ("tpusim-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  return folder;
}

}  // namespace

TEST_CASE("a timing-only run writes its summary and collectives table and a Chrome trace") {
  const RunConfig config = parse_run_config(
      "name: files\nhardware: {topology: tpu-v2-32}\nmesh: {shape: \"batch:8;model:4\"}\n"
      "model: {kind: transformer_lm, layers: 2, d_model: 64, d_ff: 256, heads: 8, d_kv: 16, vocab: 256, "
      "batch: 16,"
      " length: 32}\ntraining: {steps: 2}\n",
      "files.yaml");
  const RunReport report = run_training(config);
  REQUIRE(report.steps.size() == 2);
  CHECK(report.steps[0].step_time_s == report.steps[1].step_time_s);  // simulated time is deterministic
  CHECK_FALSE(report.steps[0].loss.has_value());
  const auto& t = report.timeline;
  CHECK(t.step_time_s > 0);
  CHECK(t.compute_s > 0);
  CHECK(t.comm_s > 0);
  // max(compute, exposed comm) <= step <= compute + comm
  CHECK(t.step_time_s >= std::max(t.compute_s, t.exposed_comm_s) * (1 - 1e-12));
  CHECK(t.step_time_s <= (t.compute_s + t.comm_s) * (1 + 1e-12));
  CHECK(report.mfu > 0);
  CHECK(report.mfu < 1);
  CHECK_FALSE(report.collectives.empty());

  const fs::path folder = fresh_folder("files");
  const auto paths = write_result_files(folder.string(), config, report);
  const auto summary = nlohmann::json::parse(read_text(paths.summary));
  CHECK(summary["config"]["name"] == "files");
  CHECK(summary["config"]["mesh"]["shape"] == "batch:8;model:4");
  CHECK(summary["config"]["mesh"]["mapping"] == "rings");
  CHECK(summary["step_time"]["step_time_s"].get<double>() == t.step_time_s);
  CHECK(summary["memory_per_core"]["fits"] == true);
  CHECK(summary["steps"].size() == 2);
  CHECK(summary["context"]["tpusim_version"].is_string());

  const std::string csv = read_text(paths.collectives);
  CHECK(csv.substr(0, csv.find('\n')) == tpusim::join(kCollectivesCsvColumns, ","));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == static_cast<long>(report.collectives.size()) + 1);

  const auto trace = nlohmann::json::parse(read_text(paths.trace));  // throws if not valid JSON
  std::size_t complete = 0, collective_events = 0;
  std::set<int> chips;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    ++complete;
    chips.insert(event["pid"].get<int>());
    if (event["cat"] == "collective") ++collective_events;
  }
  // tpu-v2-32: 16 chips running one timeline, which one chip's process shows (chrome_trace_test.cpp has the
  // other choices of chips).
  CHECK(chips == std::set<int>{0});
  CHECK(complete == t.entries.size());
  CHECK(collective_events > 0);
  CHECK(std::distance(fs::directory_iterator(fs::path(paths.summary).parent_path()),
                      fs::directory_iterator()) == 3);
  fs::remove_all(folder);
}

TEST_CASE("under the concurrent overlap policy the trace has a track per mesh axis, none overlapping") {
  const RunConfig config = parse_run_config(
      "name: streams\nhardware: {topology: tpu-v2-32, overlap: concurrent}\n"
      "mesh: {shape: \"batch:8;model:4\"}\n"
      "model: {kind: transformer_lm, layers: 2, d_model: 64, d_ff: 256, heads: 8, d_kv: 16, vocab: 256, "
      "batch: 16, length: 32}\n",
      "streams.yaml");
  const RunReport report = run_training(config);
  std::ostringstream out;
  write_chrome_trace(out, config, report, {TraceChipsMode::first, 1});
  const auto trace = nlohmann::json::parse(out.str());
  std::map<int, std::string> tracks;
  std::map<int, std::vector<std::pair<double, double>>> slices;
  for (const auto& event : trace["traceEvents"]) {
    if (event["name"] == "thread_name") tracks[event["tid"].get<int>()] = event["args"]["name"];
    if (event["ph"] == "X")
      slices[event["tid"].get<int>()].emplace_back(event["ts"].get<double>(),
                                                   event["ts"].get<double>() + event["dur"].get<double>());
  }
  CHECK(tracks == std::map<int, std::string>{
                      {0, "compute"}, {1, "collectives along batch"}, {2, "collectives along model"}});
  for (auto& [track, spans] : slices) {
    std::sort(spans.begin(), spans.end());
    // Times are printed to 0.1 ns, so a start and the end before it may differ by two roundings.
    for (std::size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first >= spans[i - 1].second - 2e-4);
  }
  // Collectives along batch and along model were in flight at once: the time counts once.
  double sum = 0;
  for (const auto& e : report.timeline.entries) {
    if (e.is_comm) sum += e.end_s - e.start_s;
  }
  CHECK(report.timeline.comm_s < sum);
}

TEST_CASE("a failed write leaves no partial file") {
  const fs::path folder = fresh_folder("atomic");
  const std::string path = (folder / "out.json").string();
  CHECK_THROWS(write_file_atomically(path, [](std::ostream& out) {
    out << "{\"partial\":";
    throw std::runtime_error("interrupted");
  }));
  CHECK(fs::is_empty(folder));  // neither the target nor the temporary file
  write_file_atomically(path, "{}\n");
  CHECK(read_text(path) == "{}\n");
  CHECK(std::distance(fs::directory_iterator(folder), fs::directory_iterator()) == 1);
  fs::remove_all(folder);
}
