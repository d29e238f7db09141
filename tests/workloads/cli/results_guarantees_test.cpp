// What tpusim promises about the results folders it writes, end to end: a folder another tpusim is writing is
// refused at once (exit status 3, naming that tpusim's pid); points whose configs coincide keep their rows
// after a resume; a record edited by hand (a step time multiplied by 1000) is named and run again, and a
// merge refuses it (exit status 2), as it refuses a manifest with a key missing; leftovers of killed runs are
// removed with one note naming them and their size.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_files.hpp"
#include "cli_runner.hpp"
#include "topologies/support/folder_lock.hpp"

using namespace tpusim::cli_test;
namespace fs = std::filesystem;

namespace {

// Three points of the tiny MLP; the first two resolve to the same config (batch 32 = 8 per batch row of 4).
const std::string kCoinciding =
    "name: co\n"
    "base: tiny-mlp\n"
    "vary:\n"
    "  model.batch: [32, {per: batch, value: 8}, 64]\n"
    "  training.numerics: [timing]\n";

std::string in_use(const std::string& folder, long pid) {
  return "tpusim: error: results folder '" + folder + "' is in use by another tpusim (pid " +
         std::to_string(pid) + "); wait for it or give another --output";
}

// The notes a run printed (not, for one, gnuplot's absence on a machine without it).
std::vector<std::string> notes_of(const CliRun& run) {
  std::vector<std::string> notes;
  for (const auto& line : run.err_lines()) {
    if (line.rfind("tpusim: note: ", 0) == 0) notes.push_back(line);
  }
  return notes;
}

// Every "step_time_s" in `value` multiplied by `factor`.
void scale_step_times(nlohmann::json& value, double factor) {
  if (value.is_object()) {
    for (auto& [key, item] : value.items()) {
      if (key == "step_time_s" && item.is_number()) {
        item = item.get<double>() * factor;
      } else {
        scale_step_times(item, factor);
      }
    }
  } else if (value.is_array()) {
    for (auto& item : value) scale_step_times(item, factor);
  }
}

}  // namespace

TEST_CASE("cli: a results folder another tpusim is writing is refused at once, one line, exit status 3") {
  const Scratch scratch;
  write_file(scratch.work() / "co.yaml", kCoinciding);
  REQUIRE(scratch.run({"sweep", "co.yaml", "--progress", "none", "--output", "shard"}).exit_status == 0);
  const auto before = scratch.entries();
  {
    // This test holds the lock of results/s, as a tpusim writing it would.
    const tpusim::FolderLock held((scratch.work() / "results" / "s").string());
    const std::vector<std::vector<std::string>> commands = {
        {"run", "--preset", "tiny-mlp", "--output", "results/s"},
        {"sweep", "co.yaml", "--output", "results/s"},
        {"sweep", "merge", "results/s", "shard"},
        {"search", "--preset", "tiny-mlp", "--output", "results/s"},
        {"fidelity", "--output", "results/s"},
        {"calibrate", "--output", "results/s", "--profiles", "none"},
    };
    for (const auto& args : commands) {
      const auto run = scratch.run(args);
      INFO(args[0] << " " << args[1] << "\n" << run.describe());
      CHECK(run.exit_status == 3);
      CHECK(run.out.empty());
      REQUIRE(run.err_lines().size() == 1);
      CHECK(run.err_lines()[0] == in_use("results/s", ::getpid()));
    }
    auto expected = before;
    expected.insert(expected.begin(), {"results/", "results/.s.lock"});
    std::sort(expected.begin(), expected.end());
    CHECK(scratch.entries() == expected);
  }
  {
    // tpusim plot redraws a sweep's folder: not while another tpusim writes it.
    const tpusim::FolderLock held((scratch.work() / "shard").string());
    const auto plot = scratch.run({"plot", "shard"});
    INFO(plot.describe());
    CHECK(plot.exit_status == 3);
    REQUIRE(plot.err_lines().size() == 1);
    CHECK(plot.err_lines()[0] == in_use("shard", ::getpid()));
  }
  const auto free = scratch.run({"sweep", "co.yaml", "--progress", "none", "--output", "results/s"});
  INFO(free.describe());
  CHECK(free.exit_status == 0);
  CHECK_FALSE(fs::exists(scratch.work() / "results" / ".s.lock"));
}

TEST_CASE(
    "cli: sweep: a second sweep into the folder a running sweep writes refuses at once, naming its pid") {
  const Scratch scratch;
  write_file(scratch.work() / "twelve.yaml", kTwelvePointSweep);
  const auto folder = scratch.work() / "results/twelve";
  const pid_t first = start_tpusim(scratch.work(), {"sweep", "twelve.yaml", "-j", "1"});
  REQUIRE(first > 0);
  REQUIRE(wait_for_records(folder, 1));
  const auto second = scratch.run({"sweep", "twelve.yaml", "-j", "1"});
  const bool first_still_ran = ::waitpid(first, nullptr, WNOHANG) == 0;
  ::kill(first, SIGKILL);
  ::waitpid(first, nullptr, 0);
  INFO(second.describe());
  // Twelve points take seconds; should the first have finished meanwhile, the second simply ran.
  if (first_still_ran) {
    CHECK(second.exit_status == 3);
    REQUIRE(second.err_lines().size() == 1);
    CHECK(second.err_lines()[0] == in_use("results/twelve", first));
  }
}

TEST_CASE("cli: sweep: points whose configs coincide keep their rows when the others' records are lost") {
  const Scratch scratch;
  write_file(scratch.work() / "co.yaml", kCoinciding);
  const auto folder = scratch.work() / "results/co";
  REQUIRE(scratch.run({"sweep", "co.yaml", "--progress", "none"}).exit_status == 0);
  const auto rows = csv_without_wall(folder / "sweep.csv");
  REQUIRE(rows.size() == 4);
  const auto records = records_in(folder);
  REQUIRE(records.size() == 3);
  CHECK(records[0].substr(2) == records[1].substr(2));  // the same config hash
  // As after a kill -9 once point 0 had its record: points 1 and 2 have none.
  fs::remove(folder / "points" / records[1]);
  fs::remove(folder / "points" / records[2]);
  const auto resumed = scratch.run({"sweep", "co.yaml", "--progress", "none"});
  INFO(resumed.describe());
  REQUIRE(resumed.exit_status == 0);
  CHECK_THAT(resumed.out, Catch::Contains("2 of 3 points done earlier"));
  CHECK(csv_without_wall(folder / "sweep.csv") == rows);
  CHECK(records_in(folder) == records);
}

TEST_CASE("cli: sweep: a step time multiplied by 1000 by hand is named and run again, and merge refuses it") {
  const Scratch scratch;
  write_file(scratch.work() / "co.yaml", kCoinciding);
  const auto folder = scratch.work() / "results/co";
  REQUIRE(scratch.run({"sweep", "co.yaml", "--progress", "none"}).exit_status == 0);
  const auto rows = csv_without_wall(folder / "sweep.csv");
  const std::string name = records_in(folder)[2];
  auto record = read_json(folder / "points" / name);
  const auto header = lines_of(folder / "sweep.csv")[0];
  const std::size_t column =
      std::count(header.begin(), header.begin() + header.find(",step_time_s,") + 1, ',');
  record["csv"][column] = record["csv"][column].get<double>() * 1000;
  scale_step_times(record["result"], 1000);
  scale_step_times(record["run"], 1000);
  write_file(folder / "points" / name, record.dump() + "\n");
  const std::string path = "results/co/points/" + name;

  const auto merged = scratch.run({"sweep", "merge", "merged", "results/co"});
  INFO(merged.describe());
  CHECK(merged.exit_status == 2);
  CHECK(merged.out.empty());
  REQUIRE(merged.err_lines().size() == 1);
  CHECK(merged.err_lines()[0] ==
        "tpusim: error: sweep merge: record '" + path +
            "' fails its checksum: it was changed after tpusim wrote it; nothing merged: "
            "remove it and run the whole sweep again to make it anew");
  CHECK_FALSE(fs::exists(scratch.work() / "merged"));

  const auto resumed = scratch.run({"sweep", "co.yaml", "--progress", "none"});
  INFO(resumed.describe());
  CHECK(resumed.exit_status == 0);
  CHECK(notes_of(resumed) == std::vector<std::string>{"tpusim: note: record '" + path +
                                                      "' fails its checksum: it was changed after tpusim "
                                                      "wrote it; running point 2 again"});
  CHECK(csv_without_wall(folder / "sweep.csv") == rows);
  CHECK(scratch.run({"sweep", "merge", "merged", "results/co"}).exit_status == 0);

  // A manifest with a key missing: one line naming the file and the key.
  auto manifest = read_json(folder / "points/manifest.json");
  manifest.erase("csv_header");
  write_file(folder / "points/manifest.json", manifest.dump());
  const auto broken = scratch.run({"sweep", "merge", "merged-2", "results/co"});
  CHECK(broken.exit_status == 2);
  REQUIRE(broken.err_lines().size() == 1);
  CHECK(broken.err_lines()[0] == "tpusim: error: results/co/points/manifest.json: csv_header: missing");
}

TEST_CASE(
    "cli: sweep: leftovers of a killed run are removed, with a note per folder naming them and their size") {
  const Scratch scratch;
  write_file(scratch.work() / "co.yaml", kCoinciding);
  const auto folder = scratch.work() / "results/co";
  REQUIRE(scratch.run({"sweep", "co.yaml", "--progress", "none"}).exit_status == 0);
  const std::string killed = ended_pid();
  const std::string record = records_in(folder)[0];
  write_file(folder / ("sweep.csv.tmp." + killed), std::string(100, 'x'));
  fs::create_directories(folder / ("plots.tmp." + killed));
  write_file(folder / ("plots.tmp." + killed) / "step_time.png", std::string(2000, 'x'));
  write_file(folder / "points" / (record + ".tmp." + killed), std::string(10, 'x'));
  const auto again = scratch.run({"sweep", "co.yaml", "--progress", "none"});
  INFO(again.describe());
  CHECK(again.exit_status == 0);
  // 2100 B is 2.05 KiB.
  CHECK(notes_of(again) ==
        std::vector<std::string>{
            "tpusim: note: removed 2 leftovers of killed runs in 'results/co' (2.05 KiB): plots.tmp." +
                killed + ", sweep.csv.tmp." + killed,
            "tpusim: note: removed 1 leftover of a killed run in 'results/co/points' (10 B): " + record +
                ".tmp." + killed});
  for (const auto& entry : scratch.entries()) CHECK(entry.find(".tmp.") == std::string::npos);
}
