// Points whose configs coincide (a weak- and a strong-scaling value that meet at one pod size) are points all
// the same: each keeps its own record and row however the runs before were interrupted, and a run never
// reports points done that its summary lacks.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "fake_study.hpp"
#include "workloads/sweep/study_runner.hpp"

using namespace tpusim::workloads;
using namespace tpusim::workloads::test;
namespace fs = std::filesystem;

namespace {

// What a kill does to a run: it stops after `points` points have their records.
struct Killed : std::runtime_error {
  Killed() : std::runtime_error("killed") {}
};

StudyRunTotals run_coinciding(const Study& study, int jobs = 1, std::size_t kill_after = SIZE_MAX) {
  StudyRunOptions options;
  options.jobs = jobs;
  std::size_t finished = 0;
  options.on_point = [&](std::size_t) {
    if (++finished >= kill_after) throw Killed();
  };
  return run_study(study, options);
}

// The rows a study of configs "c<n>" has, worked out from the configs alone: point, config, n*n, no error.
std::vector<std::string> expected_rows(const FakeStudy& study) {
  std::vector<std::string> rows = {"point,config,square,error"};
  for (std::size_t i = 0; i < study.size(); ++i) {
    const long n = std::stol(study.configs[i].substr(1));
    rows.push_back(fmt::format("{},{},{},", i, study.configs[i], n * n));
  }
  return rows;
}

std::vector<std::string> expected_record_names(const FakeStudy& study) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < study.size(); ++i)
    names.push_back(fmt::format("{}-{}.json", i, study.point_hash(i)));
  names.push_back("manifest.json");
  std::sort(names.begin(), names.end());
  return names;
}

std::string record_path(const FakeStudy& study, std::size_t point) {
  return study.output_dir() + "/points/" + fmt::format("{}-{}.json", point, study.point_hash(point));
}

}  // namespace

TEST_CASE("coinciding points: killed and resumed, every point keeps its own record and row") {
  const TempFolder temp;
  // Points 1 and 3 share a config, and so do 2 and 5.
  FakeStudy study("fake", 6, temp.path("out"));
  study.result_by_config = true;
  study.configs = {"c0", "c1", "c2", "c1", "c4", "c2"};
  REQUIRE(study.point_hash(1) == study.point_hash(3));
  CHECK_THROWS_AS(run_coinciding(study, 1, 2), Killed);  // points 0 and 1 have their records
  const auto resumed = run_coinciding(study);
  // Point 3 is done by point 1's record; 2, 4 and 5 run.
  CHECK(resumed.done_before == 3);
  CHECK(resumed.ran == 3);
  CHECK(resumed.rows == 6);
  CHECK(csv_without_wall(temp.path("out/sweep.csv")) ==
        std::vector<std::string>{"point,config,square,error", "0,c0,0,", "1,c1,1,", "2,c2,4,", "3,c1,1,",
                                 "4,c4,16,", "5,c2,4,"});
  CHECK(record_names(temp.path("out")) == expected_record_names(study));
  const auto again = run_coinciding(study);
  CHECK(again.done_before == 6);
  CHECK(again.ran == 0);
  CHECK(again.rows == 6);
  // A point whose own record is gone takes the result of its twin again, without running.
  fs::remove(record_path(study, 5));
  const auto twin = run_coinciding(study);
  CHECK(twin.ran == 0);
  CHECK(twin.rows == 6);
  CHECK(record_names(temp.path("out")) == expected_record_names(study));
}

TEST_CASE(
    "coinciding points: after kills at random moments and lost records, the rows are the uninterrupted "
    "run's") {
  std::mt19937 random(2028);
  for (int round = 0; round < 30; ++round) {
    const TempFolder temp;
    const std::size_t points = 3 + random() % 8;
    FakeStudy study("fake", points, temp.path("out"));
    study.result_by_config = true;
    // Few configs for many points: most rounds have several coinciding points.
    for (auto& config : study.configs) config = fmt::format("c{}", random() % 4);
    const int jobs = 1 + static_cast<int>(random() % 2);
    const std::size_t kills = 1 + random() % 3;
    const StderrCapture notes;  // the records cut short are named there
    std::string story = fmt::format("round {}: {} points, -j {}, configs", round, points, jobs);
    for (const auto& config : study.configs) story += " " + config;
    for (std::size_t k = 0; k < kills; ++k) {
      const std::size_t after = 1 + random() % points;
      story += fmt::format("; killed after {}", after);
      try {
        run_coinciding(study, jobs, after);
      } catch (const Killed&) {
      }
      // Some records lost too (deleted, or cut short as by a disk that filled), as a kill could not do.
      for (std::size_t i = 0; i < points; ++i) {
        if (random() % 5 != 0 || !fs::exists(record_path(study, i))) continue;
        if (random() % 2 == 0) {
          fs::remove(record_path(study, i));
          story += fmt::format(", lost {}", i);
        } else {
          std::ofstream(record_path(study, i)) << "{\"format\": \"tpusim.sweep_record.v2\", \"poi";
          story += fmt::format(", cut {}", i);
        }
      }
    }
    INFO(story);
    const auto totals = run_coinciding(study, jobs);
    CHECK(totals.rows == points);
    CHECK(totals.done_before + totals.ran == points);
    CHECK(csv_without_wall(temp.path("out/sweep.csv")) == expected_rows(study));
    CHECK(record_names(temp.path("out")) == expected_record_names(study));
  }
}

TEST_CASE("coinciding points: a run whose summary lacks a point it counted done fails, naming the point") {
  const TempFolder temp;
  FakeStudy study("fake", 4, temp.path("out"));
  // Something outside tpusim removes point 2's record between its run and the summary.
  StudyRunOptions options;
  options.on_point = [&](std::size_t point) {
    if (point == 2) fs::remove(record_path(study, 2));
  };
  try {
    run_study(study, options);
    FAIL("a run lost a point without a word");
  } catch (const std::runtime_error& error) {
    CHECK(std::string(error.what()) ==
          "sweep fake: 4 points are done but the summary holds 3 of them (the first missing: point 2, whose "
          "record is gone or fails its checks); run the sweep again to run the missing points");
  }
  // The summary of what there is was written; running again runs the point that is missing.
  CHECK(csv_without_wall(temp.path("out/sweep.csv")).size() == 4);
  const auto again = run_coinciding(study);
  CHECK(again.ran == 1);
  CHECK(again.rows == 4);
  // The same when the record is there but damaged.
  options.on_point = [&](std::size_t point) {
    if (point == 1) std::ofstream(record_path(study, 1)) << "{}";
  };
  fs::remove(record_path(study, 1));
  CHECK_THROWS_WITH(run_study(study, options), Catch::Contains("the first missing: point 1"));
}
