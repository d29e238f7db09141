// The runner of studies: a record per point, written whole; running again runs only what is missing or
// failed; a changed point's record is discarded and only that point runs again; -j 2 gives the rows of -j 1;
// a failing point is a row with its error while the others finish.
#include "workloads/sweep/study_runner.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "fake_study.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::workloads;
using namespace tpusim::workloads::test;
namespace fs = std::filesystem;

namespace {

StudyRunTotals run(const Study& study, int jobs = 1, SweepShard shard = {}) {
  StudyRunOptions options;
  options.jobs = jobs;
  options.shard = shard;
  return run_study(study, options);
}

}  // namespace

TEST_CASE("study runner: a record per point, then sweep.csv and sweep.json assembled from them") {
  const TempFolder temp;
  FakeStudy study("fake", 5, temp.path("out"));
  const auto totals = run(study);
  CHECK(totals.selected == 5);
  CHECK(totals.ran == 5);
  CHECK(totals.done_before == 0);
  CHECK(totals.rows == 5);
  CHECK(totals.ok == 5);
  const auto names = record_names(temp.path("out"));
  REQUIRE(names.size() == 6);
  CHECK(names[0] == "0-" + study.point_hash(0) + ".json");
  CHECK(names[5] == "manifest.json");
  const auto record = nlohmann::json::parse(read_text(temp.path("out/points/" + names[3])));
  CHECK(record["point"] == 3);
  CHECK(record["status"] == "ok");
  CHECK(record["result"]["square"] == 9);
  CHECK(record["values"] == nlohmann::json{"c3"});
  CHECK(csv_without_wall(temp.path("out/sweep.csv")) ==
        std::vector<std::string>{"point,config,square,error", "0,c0,0,", "1,c1,1,", "2,c2,4,", "3,c3,9,",
                                 "4,c4,16,"});
  const auto json = nlohmann::json::parse(read_text(temp.path("out/sweep.json")));
  CHECK(json["context"]["format"] == "tpusim.fake.v1");
  REQUIRE(json["runs"].size() == 5);
  CHECK(json["runs"][4]["result"]["square"] == 16);
  CHECK(json["sweep"]["name"] == "fake");
}

TEST_CASE("study runner: running again runs nothing, and a removed record runs again, alone") {
  const TempFolder temp;
  FakeStudy study("fake", 6, temp.path("out"));
  run(study);
  const auto before = csv_without_wall(temp.path("out/sweep.csv"));
  auto again = run(study);
  CHECK(again.ran == 0);
  CHECK(again.done_before == 6);
  CHECK(again.rows == 6);
  fs::remove(temp.path("out/points/2-" + study.point_hash(2) + ".json"));
  again = run(study);
  CHECK(again.ran == 1);
  CHECK(again.done_before == 5);
  CHECK(csv_without_wall(temp.path("out/sweep.csv")) == before);
  CHECK(record_names(temp.path("out")).size() == 7);
}

TEST_CASE("study runner: a changed point's record is discarded and only that point runs again") {
  const TempFolder temp;
  FakeStudy study("fake", 4, temp.path("out"));
  run(study);
  study.configs[1] = "c1-changed";
  study.configs[3] = "c3-changed";
  const auto totals = run(study);
  CHECK(totals.discarded == 2);
  CHECK(totals.ran == 2);
  CHECK(totals.done_before == 2);
  CHECK(csv_without_wall(temp.path("out/sweep.csv")) ==
        std::vector<std::string>{"point,config,square,error", "0,c0,0,", "1,c1-changed,1,", "2,c2,4,",
                                 "3,c3-changed,9,"});
  CHECK(record_names(temp.path("out")).size() == 5);
  // Another version of tpusim (every hash differs): every record goes.
  study.result_scale = 2;
  const auto all = run(study);
  CHECK(all.discarded == 4);
  CHECK(all.ran == 4);
  CHECK(csv_without_wall(temp.path("out/sweep.csv"))[4] == "3,c3-changed,18,");
}

TEST_CASE("study runner: a record found under another index is moved to its point, not run again") {
  const TempFolder temp;
  FakeStudy study("fake", 3, temp.path("out"));
  run(study);
  // A value inserted before the others: every point moves up one index, and only the new one runs.
  study.configs.insert(study.configs.begin(), "new");
  const auto totals = run(study);
  CHECK(totals.ran == 1);
  CHECK(totals.discarded == 0);
  CHECK(totals.rows == 4);
  const auto names = record_names(temp.path("out"));
  REQUIRE(names.size() == 5);
  for (std::size_t i = 0; i < 4; ++i) CHECK(names[i] == fmt::format("{}-{}.json", i, study.point_hash(i)));
  // The moved records keep their results (made for c0..c2 at 0..2) under their new points.
  CHECK(csv_without_wall(temp.path("out/sweep.csv"))[2] == "1,c0,0,");
}

TEST_CASE("study runner: -j 2 gives the records and rows of -j 1") {
  const TempFolder temp;
  FakeStudy one("fake", 9, temp.path("one")), two("fake", 9, temp.path("two"));
  run(one, 1);
  const auto totals = run(two, 2);
  CHECK(totals.ran == 9);
  CHECK(csv_without_wall(temp.path("one/sweep.csv")) == csv_without_wall(temp.path("two/sweep.csv")));
  CHECK(record_names(temp.path("one")) == record_names(temp.path("two")));
}

TEST_CASE("study runner: a point failing at run time is a row with its error, and the others finish") {
  const TempFolder temp;
  FakeStudy study("fake", 5, temp.path("out"));
  study.failing = {1};
  study.crashing = {3};
  study.skipped = {4};
  const auto totals = run(study, 2);
  CHECK(totals.rows == 5);
  CHECK(totals.ok == 2);
  CHECK(totals.failed == 2);
  CHECK(totals.skipped == 1);
  CHECK(totals.first_failure == "point 1 broke");
  const auto csv = csv_without_wall(temp.path("out/sweep.csv"));
  CHECK(csv[2] == "1,c1,,point 1 broke");
  CHECK(csv[4] == "3,c3,,child process killed by signal 6 (Aborted)");
  CHECK(csv[5] == "4,c4,,does not fit");
  // Failures run again (they may pass now); the skipped point and the others do not.
  study.failing.clear();
  study.crashing.clear();
  const auto again = run(study, 2);
  CHECK(again.ran == 2);
  CHECK(again.failed == 0);
  CHECK(csv_without_wall(temp.path("out/sweep.csv"))[4] == "3,c3,9,");
}

TEST_CASE(
    "study runner: temporaries of a killed writer are removed, and other files keep the folder from use") {
  const TempFolder temp;
  FakeStudy study("fake", 2, temp.path("out"));
  run(study);
  // A pid that no process has: the largest a pid may be is 4194304.
  const std::string stale = temp.path("out/points/1-" + study.point_hash(1) + ".json.tmp.99999999");
  std::ofstream(stale) << "{\"torn";
  std::ofstream(temp.path("out/sweep.csv.tmp.99999999")) << "torn";
  run(study);
  CHECK_FALSE(fs::exists(stale));
  CHECK_FALSE(fs::exists(temp.path("out/sweep.csv.tmp.99999999")));
  // What tpusim draws from the summary belongs to the folder too.
  fs::create_directory(temp.path("out/plots"));
  std::ofstream(temp.path("out/report.md")) << "# Sweep fake\n";
  CHECK(run(study).done_before == 2);
  std::ofstream(temp.path("out/notes.txt")) << "mine";
  try {
    run(study);
    FAIL("a folder holding notes.txt was used");
  } catch (const tpusim::InputError& error) {
    CHECK(std::string(error.what()) ==
          "results folder '" + temp.path("out") +
              "' holds 'notes.txt', which is not a result of tpusim sweep; give an output folder of its own "
              "(new, empty or an earlier output of a sweep)");
  }
}

TEST_CASE("study runner: without files nothing is written and the JSON is printed") {
  const TempFolder temp;
  FakeStudy study("fake", 3, temp.path("out"));
  std::ostringstream json;
  StudyRunOptions options;
  options.files = false;
  options.json_out = &json;
  const auto totals = run_study(study, options);
  CHECK(totals.rows == 3);
  CHECK_FALSE(fs::exists(temp.path("out")));
  const auto document = nlohmann::json::parse(json.str());
  CHECK(document["runs"].size() == 3);
  CHECK(document["runs"][2]["result"]["square"] == 4);
}
