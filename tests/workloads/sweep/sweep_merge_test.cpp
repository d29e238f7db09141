// Shards and merging: shard K of N runs the points with index % N == K-1; the merge of all shards is the
// unsharded run; folders of different sweeps, records that disagree and missing points are one line each,
// with nothing written.
#include "workloads/sweep/sweep_merge.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "fake_study.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/sweep/folder_json.hpp"
#include "workloads/sweep/study_runner.hpp"
#include "workloads/sweep/sweep_shard.hpp"

using namespace tpusim::workloads;
using namespace tpusim::workloads::test;
namespace fs = std::filesystem;

namespace {

void run_shard(FakeStudy& study, const std::string& folder, const std::string& shard) {
  study.set_output_dir(folder);
  StudyRunOptions options;
  options.shard = parse_shard(shard);
  options.jobs = 2;
  run_study(study, options);
}

}  // namespace

TEST_CASE("merge: the shards of a sweep merge into the unsharded run") {
  const TempFolder temp;
  FakeStudy study("fake", 7, temp.path("whole"));
  run_study(study, StudyRunOptions{});
  for (const char* shard : {"1/3", "2/3", "3/3"})
    run_shard(study, temp.path(std::string("shard-") + shard[0]), shard);
  // Shard 2 of 3: points 1 and 4.
  CHECK(csv_without_wall(temp.path("shard-2/sweep.csv")) ==
        std::vector<std::string>{"point,config,square,error", "1,c1,1,", "4,c4,16,"});
  const auto totals = merge_sweep_folders(temp.path("merged"),
                                          {temp.path("shard-3"), temp.path("shard-1"), temp.path("shard-2")});
  CHECK(totals.rows == 7);
  CHECK(totals.ok == 7);
  CHECK(csv_without_wall(temp.path("merged/sweep.csv")) == csv_without_wall(temp.path("whole/sweep.csv")));
  CHECK(record_names(temp.path("merged")) == record_names(temp.path("whole")));
  auto merged = nlohmann::json::parse(read_text(temp.path("merged/sweep.json")));
  auto whole = nlohmann::json::parse(read_text(temp.path("whole/sweep.json")));
  for (auto* document : {&merged, &whole}) document->erase("wall_s");
  CHECK(merged == whole);
  // Overlapping folders that agree merge too (the whole run and a shard of it); an earlier merge is replaced.
  merge_sweep_folders(temp.path("merged"), {temp.path("whole"), temp.path("shard-2")});
  CHECK(csv_without_wall(temp.path("merged/sweep.csv")) == csv_without_wall(temp.path("whole/sweep.csv")));
}

TEST_CASE("merge: a missing point, different sweeps or disagreeing records are one line, nothing written") {
  const TempFolder temp;
  FakeStudy study("fake", 6, temp.path("unused"));
  run_shard(study, temp.path("a"), "1/2");
  run_shard(study, temp.path("b"), "2/2");
  CHECK(
      merge_error(temp.path("out"), {temp.path("a")}) ==
      "sweep merge: 3 of the 6 points of sweep fake are in none of the folders (the first: point 1); run its "
      "shard (--shard 2/2) again, or give its folder");

  FakeStudy other("fake", 6, temp.path("unused"));
  other.configs[5] = "c5-changed";
  run_shard(other, temp.path("c"), "2/2");
  const auto different = merge_error(temp.path("out"), {temp.path("a"), temp.path("c")});
  CHECK_THAT(different, Catch::StartsWith("sweep merge: '" + temp.path("c") + "' holds sweep fake (hash "));
  CHECK_THAT(different,
             Catch::Contains("the folders are of different sweeps, or of different versions of one"));

  // The same point, another result: a record of shard b copied into a with its result changed (and its
  // checksum made anew, as a run of another machine would have it; record_checks_test has those that fail).
  const std::string name = "1-" + study.point_hash(1) + ".json";
  auto record = nlohmann::json::parse(read_text(temp.path("b/points/" + name)));
  record["result"]["square"] = 2;
  std::ofstream(temp.path("a/points/" + name)) << with_checksum(record).dump() << "\n";
  CHECK(merge_error(temp.path("out"), {temp.path("a"), temp.path("b")}) ==
        "sweep merge: point 1 differs between '" + temp.path("a") + "' (ok) and '" + temp.path("b") +
            "' (ok); the records of one point must agree: remove the wrong folder's record, or run its shard "
            "again");
  CHECK(merge_error(temp.path("out"), {temp.path("a"), temp.path("nowhere")}) ==
        "'" + temp.path("nowhere") + "' is not a folder (expected a sweep's output folder)");
  CHECK(merge_error(temp.path("a"), {temp.path("a"), temp.path("b")}) ==
        "sweep merge: the output folder '" + temp.path("a") +
            "' is also an input; merge into a folder of its own");
  CHECK_FALSE(fs::exists(temp.path("out")));
}

TEST_CASE("merge: a shard runs only its points, and resumes like a whole sweep") {
  const TempFolder temp;
  FakeStudy study("fake", 10, temp.path("unused"));
  run_shard(study, temp.path("s"), "3/4");  // points 2 and 6
  CHECK(record_names(temp.path("s")).size() == 3);
  study.set_output_dir(temp.path("s"));
  StudyRunOptions options;
  options.shard = parse_shard("3/4");
  const auto again = run_study(study, options);
  CHECK(again.selected == 2);
  CHECK(again.ran == 0);
  CHECK(again.done_before == 2);
}
