// tpusim run's trace.json end to end (--trace-chips): the default run writes one chip's tracks standing for
// the 256 chips, a file that opens at once; all writes every chip and N the first N; a faulty pod's straggler
// has tracks of its own; the printed results line says what the trace holds; a bad value is one line, exit
// status 2.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_files.hpp"
#include "cli_runner.hpp"

using tpusim::cli_test::CliRun;
using tpusim::cli_test::read_json;
using tpusim::cli_test::Scratch;

namespace {

// Complete events per process, and each process's name.
struct TraceProcesses {
  std::map<int, std::size_t> events;
  std::map<int, std::string> names;
};

TraceProcesses processes_of(const nlohmann::json& trace) {
  TraceProcesses processes;
  for (const auto& event : trace.at("traceEvents")) {
    const int pid = event.at("pid").get<int>();
    if (event.at("ph") == "X") ++processes.events[pid];
    if (event.at("name") == "process_name") processes.names[pid] = event.at("args").at("name");
  }
  return processes;
}

// The line after the report: "results in out/ (summary.json, collectives.csv, trace.json...)".
std::string results_line(const CliRun& run) {
  const auto at = run.out.rfind("results in ");
  return at == std::string::npos ? "" : run.out.substr(at, run.out.find('\n', at) - at);
}

}  // namespace

TEST_CASE("cli: run: the default run's trace is one chip's tracks standing for all 256, under 1 MB") {
  const Scratch scratch;
  const auto run = scratch.run({"run", "--output", "out"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(results_line(run) ==
        "results in out/ (summary.json, collectives.csv, trace.json: chip 0's tracks, standing for all 256 "
        "chips, "
        "which run the same timeline; --trace-chips all writes every chip)");
  // Every chip's tracks made 84 MB, which Perfetto takes many seconds to open; one chip's are about 0.3 MB.
  const auto trace_path = scratch.work() / "out" / "trace.json";
  CHECK(std::filesystem::file_size(trace_path) < 1000 * 1000);
  const auto trace = read_json(trace_path);
  const auto processes = processes_of(trace);
  CHECK(processes.names ==
        std::map<int, std::string>{{0, "chip 0 (x=0, y=0), cores 0-1, for all 256 chips"}});
  REQUIRE(processes.events.size() == 1);
  CHECK(processes.events.at(0) > 1000);  // the step of the 4.9B model: thousands of ops and collectives
  const auto& other = trace.at("otherData");
  CHECK(other.at("trace_chips") == "classes");
  CHECK(other.at("chips") == 256);
  CHECK(
      other.at("processes") ==
      nlohmann::json::array({{{"pid", 0}, {"stands_for", "0-255"}, {"chips", 256}, {"faults", "healthy"}}}));
  CHECK(other.at("chips_without_tracks") == "1-255");
}

TEST_CASE("cli: run --trace-chips all writes every chip, N the first N, each the same step") {
  const Scratch scratch;
  const auto all = scratch.run({"run", "--preset", "lm-s1", "--output", "all", "--trace-chips", "all"});
  INFO(all.describe());
  REQUIRE(all.exit_status == 0);
  CHECK(results_line(all) == "results in all/ (summary.json, collectives.csv, trace.json)");
  const auto every = processes_of(read_json(scratch.work() / "all" / "trace.json"));
  REQUIRE(every.events.size() == 16);  // tpu-v2-32: 4x4 chips
  for (const auto& [pid, events] : every.events) CHECK(events == every.events.at(0));
  CHECK(every.names.at(15) == "chip 15 (x=3, y=3), cores 30-31");

  const auto first = scratch.run({"run", "--preset", "lm-s1", "--output", "first", "--trace-chips", "4"});
  INFO(first.describe());
  REQUIRE(first.exit_status == 0);
  CHECK(
      results_line(first) ==
      "results in first/ (summary.json, collectives.csv, trace.json: chips 0-3 of 16, which all run the same "
      "timeline; --trace-chips all writes every chip)");
  const auto four = processes_of(read_json(scratch.work() / "first" / "trace.json"));
  CHECK(four.events == std::map<int, std::size_t>{{0, every.events.at(0)},
                                                  {1, every.events.at(0)},
                                                  {2, every.events.at(0)},
                                                  {3, every.events.at(0)}});
}

TEST_CASE("cli: run: a faulty pod's straggler has tracks of its own in the default trace") {
  const Scratch scratch;
  const auto run =
      scratch.run({"run", "--preset", "lm-s1", "--output", "out", "--faults", "straggler:1.2:1.5"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(results_line(run) ==
        "results in out/ (summary.json, collectives.csv, trace.json: 2 track sets for the 16 chips, one per "
        "class: 15 healthy, 1 straggler 1.5x slower; --trace-chips all writes every chip)");
  const auto processes = processes_of(read_json(scratch.work() / "out" / "trace.json"));
  // Chip (1,2) is chip 1 + 4 * 2 = 9.
  CHECK(processes.names ==
        std::map<int, std::string>{{0, "chip 0 (x=0, y=0), cores 0-1, for 15 chips (healthy): 0-8, 10-15"},
                                   {9, "chip 9 (x=1, y=2), cores 18-19: straggler 1.5x slower"}});
  REQUIRE(processes.events.size() == 2);
  CHECK(processes.events.at(9) == processes.events.at(0));
}

TEST_CASE("cli: run: a bad --trace-chips is one line, exit status 2, before anything is written") {
  for (const std::string bad : {"abc", "-1", "1.5", "65537", "every", "4 chips"}) {
    const Scratch scratch;
    const auto run = scratch.run({"run", "--preset", "lm-s1", "--trace-chips", bad});
    INFO(run.describe());
    CHECK(run.exit_status == 2);
    CHECK(run.out.empty());
    CHECK(run.err_lines() ==
          std::vector<std::string>{
              "tpusim: error: --trace-chips: '" + bad +
              "' is not a choice of chips: expected classes (one track set per class of chips), all, or how "
              "many of the first chips to write (1 to 65536; 0 is all) (see 'tpusim run --help')"});
    CHECK(scratch.entries().empty());
  }
  const Scratch scratch;
  const auto empty = scratch.run({"run", "--preset", "lm-s1", "--trace-chips", ""});
  CHECK(empty.exit_status == 2);
  CHECK(empty.err_lines() ==
        std::vector<std::string>{"tpusim: error: --trace-chips: an empty value: give one, "
                                 "or leave the option out (see 'tpusim run --help')"});
  CHECK(scratch.entries().empty());
}
