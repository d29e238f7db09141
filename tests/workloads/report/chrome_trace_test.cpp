// A run's trace.json (chrome_trace.hpp): the default holds every distinct timeline of the full trace in a
// fraction of its size, a faulty pod's straggler has tracks of its own, every event has the fields a trace
// viewer needs, and otherData says what each process stands for and which chips have no tracks.
#include "workloads/report/chrome_trace.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "topologies/rank_mapping.hpp"
#include "workloads/config/config_parser.hpp"

using namespace tpusim::workloads;
using nlohmann::json;

namespace {

// 16 chips (tpu-v2-32, 4x4 chips x 2 cores), a two-layer language model: a step of a few hundred events.
RunConfig small_config(const std::string& faults) {
  return parse_run_config(
      "name: trace\nhardware: {topology: tpu-v2-32, faults: \"" + faults +
          "\"}\nmesh: {shape: \"batch:8;model:4\"}\n"
          "model: {kind: transformer_lm, layers: 2, d_model: 64, d_ff: 256, heads: 8, d_kv: 16, vocab: 256, "
          "batch: 16, length: 32}\n",
      "trace.yaml");
}

struct Trace {
  std::size_t bytes = 0;
  json document;
};

Trace write_trace(const RunConfig& config, const RunReport& report, const TraceSelection& selection) {
  std::ostringstream out;
  write_chrome_trace(out, config, report, selection);
  return {out.str().size(), json::parse(out.str())};
}

// Each process's complete events without their pid, in file order: its timeline.
std::map<int, std::vector<std::string>> timelines(const json& trace) {
  std::map<int, std::vector<std::string>> by_pid;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    json without_pid = event;
    without_pid.erase("pid");
    by_pid[event["pid"].get<int>()].push_back(without_pid.dump());
  }
  return by_pid;
}

std::map<int, std::string> process_names(const json& trace) {
  std::map<int, std::string> names;
  for (const auto& event : trace["traceEvents"]) {
    if (event["name"] == "process_name") names[event["pid"].get<int>()] = event["args"]["name"];
  }
  return names;
}

// What Perfetto and chrome://tracing need of the file: a traceEvents array; every event a name and a phase;
// complete events (X) a category, a start and a duration in microseconds, a process and a thread; metadata
// events (M) a process and args; every process and thread that has events named.
void check_loadable(const json& trace) {
  REQUIRE(trace.is_object());
  REQUIRE(trace.contains("traceEvents"));
  REQUIRE(trace["traceEvents"].is_array());
  CHECK(trace["displayTimeUnit"] == "ns");
  std::set<int> named_processes, pids;
  std::set<std::pair<int, int>> named_threads, threads;
  for (const auto& event : trace["traceEvents"]) {
    INFO(event.dump());
    REQUIRE(event.is_object());
    REQUIRE(event["name"].is_string());
    REQUIRE(event["ph"].is_string());
    REQUIRE(event["pid"].is_number_integer());
    const int pid = event["pid"].get<int>();
    if (event["ph"] == "M") {
      REQUIRE(event["args"].is_object());
      if (event["name"] == "process_name") named_processes.insert(pid);
      if (event["name"] == "thread_name") named_threads.insert({pid, event["tid"].get<int>()});
      continue;
    }
    REQUIRE(event["ph"] == "X");
    REQUIRE(event["cat"].is_string());
    REQUIRE(event["ts"].is_number());
    REQUIRE(event["dur"].is_number());
    REQUIRE(event["tid"].is_number_integer());
    CHECK(event["ts"].get<double>() >= 0);
    CHECK(event["dur"].get<double>() >= 0);
    pids.insert(pid);
    threads.insert({pid, event["tid"].get<int>()});
  }
  CHECK_FALSE(pids.empty());
  CHECK(pids == named_processes);
  for (const auto& thread : threads) CHECK(named_threads.count(thread) == 1);
}

// otherData's processes: each one's chips ("0-3, 5"), expanded.
std::map<int, std::set<int>> stands_for(const json& trace) {
  std::map<int, std::set<int>> chips;
  for (const auto& process : trace["otherData"]["processes"]) {
    std::set<int>& set = chips[process["pid"].get<int>()];
    std::istringstream ranges(process["stands_for"].get<std::string>());
    std::string range;
    while (std::getline(ranges, range, ',')) {
      const auto dash = range.find('-');
      const int first = std::stoi(range.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
      for (int chip = first; chip <= last; ++chip) set.insert(chip);
    }
    CHECK(set.size() == process["chips"].get<std::size_t>());
  }
  return chips;
}

}  // namespace

TEST_CASE(
    "chrome trace: the default holds every distinct timeline of the full trace, in a fraction of its size") {
  const RunConfig config = small_config("");
  const RunReport report = run_training(config);
  const Trace full = write_trace(config, report, {TraceChipsMode::all, 0});
  const Trace classes = write_trace(config, report, {});
  check_loadable(full.document);
  check_loadable(classes.document);

  // The full trace writes every chip.
  const auto full_timelines = timelines(full.document);
  REQUIRE(full_timelines.size() == 16);
  for (const auto& [pid, events] : full_timelines) CHECK(events.size() == report.timeline.entries.size());
  CHECK(full.document["otherData"]["chips_without_tracks"] == "");

  // Every timeline of the full trace is one of the default's; the default has no other.
  std::set<std::vector<std::string>> distinct_full, distinct_classes;
  for (const auto& [pid, events] : full_timelines) distinct_full.insert(events);
  for (const auto& [pid, events] : timelines(classes.document)) distinct_classes.insert(events);
  CHECK(distinct_classes == distinct_full);
  // 16 chips running one timeline: the default is one process, a sixteenth of the full trace and well under
  // the few megabytes that open at once in Perfetto.
  CHECK(timelines(classes.document).size() == 1);
  CHECK(classes.bytes * 15 < full.bytes);
  CHECK(classes.bytes < 200 * 1000);

  const auto& other = classes.document["otherData"];
  CHECK(other["trace_chips"] == "classes");
  CHECK(other["chips"] == 16);
  CHECK(other["chips_without_tracks"] == "1-15");
  CHECK(stands_for(classes.document) ==
        std::map<int, std::set<int>>{{0, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}});
  CHECK(process_names(classes.document) ==
        std::map<int, std::string>{{0, "chip 0 (x=0, y=0), cores 0-1, for all 16 chips"}});
}

TEST_CASE("chrome trace: a faulty pod's straggler and the chips at a slow link have tracks in the default") {
  // Chip (1,2), chip 9, computes 1.5 times slower; the link from chip (3,3), chip 15, to its + neighbour
  // along x, chip (0,3) = 12, is at half its bandwidth.
  const RunConfig config = small_config("straggler:1.2:1.5;slow:3.3+x:0.5");
  const RunReport report = run_training(config);
  const Trace trace = write_trace(config, report, {});
  check_loadable(trace.document);
  const auto names = process_names(trace.document);
  CHECK(names == std::map<int, std::string>{
                     {0, "chip 0 (x=0, y=0), cores 0-1, for 13 chips (healthy): 0-8, 10-11, 13-14"},
                     {9, "chip 9 (x=1, y=2), cores 18-19: straggler 1.5x slower"},
                     {12, "chip 12 (x=0, y=3), cores 24-25, for 2 chips (at a slow link): 12, 15"}});
  const auto by_pid = timelines(trace.document);
  REQUIRE(by_pid.size() == 3);
  for (const auto& [pid, events] : by_pid) CHECK(events.size() == report.timeline.entries.size());
  CHECK(stands_for(trace.document).at(12) == std::set<int>{12, 15});
  const auto& processes = trace.document["otherData"]["processes"];
  REQUIRE(processes.size() == 3);
  CHECK(processes[1]["chip_faults"] == json{{"9", "straggler 1.5x slower"}});
  CHECK(processes[2]["chip_faults"] ==
        json{{"12", "link 3.3+x at 0.5 bandwidth"}, {"15", "link 3.3+x at 0.5 bandwidth"}});
  CHECK(trace.document["otherData"]["faults"] == "slow:3.3+x:0.5;straggler:1.2:1.5");
  CHECK(trace.document["otherData"]["chips_without_tracks"] == "1-8, 10-11, 13-15");

  // Every chip's process names its faults in the full trace too.
  const auto all_names = process_names(write_trace(config, report, {TraceChipsMode::all, 0}).document);
  REQUIRE(all_names.size() == 16);
  CHECK(all_names.at(9) == "chip 9 (x=1, y=2), cores 18-19: straggler 1.5x slower");
  CHECK(all_names.at(1) == "chip 1 (x=1, y=0), cores 2-3");

  // The first N chips: those, in order, and the rest named as without tracks.
  const Trace first = write_trace(config, report, {TraceChipsMode::first, 3});
  check_loadable(first.document);
  CHECK(timelines(first.document).size() == 3);
  CHECK(first.document["otherData"]["trace_chips"] == "first 3");
  CHECK(first.document["otherData"]["chips_without_tracks"] == "3-15");
}
