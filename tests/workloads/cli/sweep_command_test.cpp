// tpusim sweep end to end: a bad sweep is one line and exit status 2 with nothing written; a tiny sweep
// prints a row per point and writes its records, sweep.csv and sweep.json; a sweep killed with kill -9 loses
// nothing and resumes; bad -j, --shard and merge arguments are one line each.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "../report/image_checks.hpp"
#include "cli_files.hpp"
#include "cli_runner.hpp"

using namespace tpusim::cli_test;

TEST_CASE("cli: sweep: an invalid point is one line naming the sweep file, exit status 2, no files") {
  const Scratch scratch;
  write_file(scratch.work() / "bad.yaml",
             "base: tiny-mlp\n"
             "vary:\n"
             "  mesh.shape:\n"
             "    - batch:4;model:2\n"
             "    - batch:4;model:4\n");
  const auto run = scratch.run({"sweep", "bad.yaml"});
  INFO(run.describe());
  CHECK(run.exit_status == 2);
  CHECK(run.out.empty());
  REQUIRE(run.err_lines().size() == 1);
  CHECK(run.err_lines()[0] ==
        "tpusim: error: bad.yaml:5: vary.mesh.shape[1]: batch:4;model:4 has 16 cores but the topology ring-8 "
        "has 8");
  CHECK(scratch.entries() == std::vector<std::string>{"bad.yaml"});
}

TEST_CASE("cli: sweep: a tiny sweep prints a row per point and writes the CSV and JSON") {
  const Scratch scratch;
  write_file(scratch.work() / "tiny.yaml",
             "name: tiny\n"
             "base: tiny-mlp\n"
             "vary:\n"
             "  mesh.shape: [batch:4;model:2, batch:8;model:1]\n"
             "  training.numerics: [timing]\n");
  const auto run = scratch.run({"sweep", "tiny.yaml", "-j", "2"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  // stderr is not a terminal: the progress is plain lines (and, without gnuplot, the one line saying so).
  for (const auto& line : run.err_lines()) {
    if (!tpusim::test::have_gnuplot() && line.find("gnuplot is not installed") != std::string::npos) continue;
    CHECK_THAT(line, Catch::StartsWith("tiny: "));
  }
  CHECK_THAT(run.err, Catch::Contains("tiny: 2/2 done  0 failed"));
  CHECK_THAT(run.out, Catch::Contains("tpusim sweep tiny: 2 points, base tiny-mlp"));
  CHECK_THAT(run.out, Catch::Contains("results in results/tiny/ (sweep.csv, sweep.json, report.md, plots/)"));
  // The sweep draws its plots itself (what `tpusim plot` draws again); without gnuplot only the images miss.
  CHECK(std::filesystem::is_regular_file(scratch.work() / "results/tiny/report.md"));
  CHECK(std::filesystem::is_regular_file(scratch.work() / "results/tiny/plots/step_time.gp"));
  if (tpusim::test::have_gnuplot()) {
    CHECK(std::filesystem::file_size(scratch.work() / "results/tiny/plots/step_time.png") > 0);
    CHECK(std::filesystem::file_size(scratch.work() / "results/tiny/plots/step_time.svg") > 0);
  }
  const auto csv = lines_of(scratch.work() / "results/tiny/sweep.csv");
  REQUIRE(csv.size() == 3);
  CHECK(csv[0].rfind("point,mesh.shape,training.numerics,topology,cores,", 0) == 0);
  CHECK(csv[1].rfind("0,batch:4;model:2,timing,ring-8,8,", 0) == 0);
  CHECK(csv[2].rfind("1,batch:8;model:1,timing,ring-8,8,", 0) == 0);
  std::ifstream json_file(scratch.work() / "results/tiny/sweep.json");
  const auto json = nlohmann::json::parse(json_file);
  CHECK(json["context"]["format"] == "tpusim.sweep.v1");
  CHECK(json["sweep"]["name"] == "tiny");
  REQUIRE(json["runs"].size() == 2);
  CHECK(json["runs"][0]["step_time"]["step_time_s"].get<double>() > 0);
  CHECK(json["runs"][1]["memory_per_core"]["fits"] == true);
  const auto records = records_in(scratch.work() / "results/tiny");
  REQUIRE(records.size() == 2);
  std::vector<std::string> expected = {"results/", "results/tiny/", "results/tiny/points/"};
  for (const auto& record : records) expected.push_back("results/tiny/points/" + record);
  expected.insert(expected.end(), {"results/tiny/points/manifest.json", "results/tiny/sweep.csv",
                                   "results/tiny/sweep.json", "tiny.yaml"});
  std::sort(expected.begin(), expected.end());
  // The plots' own files are sweep_plots_test's.
  auto entries = scratch.entries();
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [](const std::string& entry) {
                                 return entry.rfind("results/tiny/plots", 0) == 0 ||
                                        entry == "results/tiny/report.md";
                               }),
                entries.end());
  CHECK(entries == expected);
  const auto record =
      nlohmann::json::parse(std::ifstream(scratch.work() / "results/tiny/points" / records[1]));
  CHECK(record["point"] == 1);
  CHECK(record["status"] == "ok");
  CHECK(record["values"] == nlohmann::json{"batch:8;model:1", "timing"});

  // Run again: nothing runs, the same rows.
  const auto again = scratch.run({"sweep", "tiny.yaml", "--progress", "none"});
  INFO(again.describe());
  CHECK(again.exit_status == 0);
  CHECK(again.err.find("tiny:") == std::string::npos);  // --progress none
  CHECK_THAT(again.out,
             Catch::Contains("2 of 2 points done earlier (records in results/tiny/points/); running "
                             "the other 0"));
  CHECK(lines_of(scratch.work() / "results/tiny/sweep.csv") == csv);

  // A changed vary value: that point's record is discarded, and that point alone runs.
  write_file(scratch.work() / "tiny.yaml",
             "name: tiny\n"
             "base: tiny-mlp\n"
             "vary:\n"
             "  mesh.shape: [batch:4;model:2, batch:2;model:4]\n"
             "  training.numerics: [timing]\n");
  const auto changed = scratch.run({"sweep", "tiny.yaml", "--progress", "none"});
  INFO(changed.describe());
  CHECK(changed.exit_status == 0);
  CHECK_THAT(changed.out,
             Catch::Contains("1 record of an earlier version of this sweep is discarded: the base "
                             "config, the vary block or the tpusim version changed\n"));
  CHECK_THAT(changed.out, Catch::Contains("1 of 2 points done earlier"));
  const auto changed_csv = lines_of(scratch.work() / "results/tiny/sweep.csv");
  REQUIRE(changed_csv.size() == 3);
  CHECK(changed_csv[1] == csv[1]);
  CHECK(changed_csv[2].rfind("1,batch:2;model:4,timing,ring-8,8,", 0) == 0);
  CHECK(records_in(scratch.work() / "results/tiny").size() == 2);
}

TEST_CASE("cli: sweep: killed with kill -9 mid-run, the next run finishes it with every point once") {
  const Scratch scratch;
  write_file(scratch.work() / "twelve.yaml", kTwelvePointSweep);
  const auto folder = scratch.work() / "results/twelve";
  const pid_t pid = start_tpusim(scratch.work(), {"sweep", "twelve.yaml", "-j", "1"});
  REQUIRE(pid > 0);
  // Killed once two points have their records, while the others run.
  wait_for_records(folder, 2);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const auto kept = records_in(folder);
  INFO(kept.size() << " records when killed");
  REQUIRE(kept.size() >= 2);
  REQUIRE(kept.size() < 12);
  // Every record there is whole.
  for (const auto& name : kept) {
    const auto record = nlohmann::json::parse(std::ifstream(folder / "points" / name), nullptr, false);
    CHECK(record.is_object());
  }

  const auto resumed = scratch.run({"sweep", "twelve.yaml", "-j", "2"});
  INFO(resumed.describe());
  REQUIRE(resumed.exit_status == 0);
  CHECK_THAT(resumed.out, Catch::Contains(std::to_string(kept.size()) + " of 12 points done earlier"));
  // One record per point, no temporaries left, and the rows of a run never interrupted.
  const auto records = records_in(folder);
  REQUIRE(records.size() == 12);
  std::set<int> points;
  for (const auto& name : records) points.insert(std::stoi(name.substr(0, name.find('-'))));
  CHECK(points.size() == 12);
  std::error_code error;
  for (std::filesystem::directory_iterator it(folder / "points", error), end; !error && it != end;
       it.increment(error))
    CHECK(it->path().filename().string().find(".tmp.") == std::string::npos);
  const auto fresh = scratch.run({"sweep", "twelve.yaml", "-j", "2", "--output", "results/fresh"});
  REQUIRE(fresh.exit_status == 0);
  const auto rows = csv_without_wall(folder / "sweep.csv");
  CHECK(rows.size() == 13);
  CHECK(rows == csv_without_wall(scratch.work() / "results/fresh/sweep.csv"));
}

TEST_CASE("cli: sweep: shards run their points into their own folders and merge into the whole sweep") {
  const Scratch scratch;
  write_file(scratch.work() / "tiny.yaml",
             "name: tiny\n"
             "base: tiny-mlp\n"
             "vary:\n"
             "  mesh.shape: [batch:4;model:2, batch:8;model:1, batch:2;model:4]\n"
             "  training.numerics: [timing]\n");
  const auto one = scratch.run({"sweep", "tiny.yaml", "--shard", "1/2"});
  INFO(one.describe());
  REQUIRE(one.exit_status == 0);
  CHECK_THAT(one.out, Catch::Contains("shard 1/2: the 2 of 3 points whose index % 2 is 0"));
  CHECK_THAT(one.out, Catch::Contains("results in results/tiny-shard-1-of-2/"));
  REQUIRE(scratch.run({"sweep", "tiny.yaml", "--shard", "2/2", "--output", "two"}).exit_status == 0);
  REQUIRE(scratch.run({"sweep", "tiny.yaml", "-j", "1"}).exit_status == 0);
  const auto merged = scratch.run({"sweep", "merge", "merged", "results/tiny-shard-1-of-2", "two"});
  INFO(merged.describe());
  REQUIRE(merged.exit_status == 0);
  CHECK(merged.out ==
        "merged 2 folders of sweep tiny: 3 points (3 ok); results in merged/ "
        "(sweep.csv, sweep.json, report.md, plots/)\n");
  CHECK(std::filesystem::is_regular_file(scratch.work() / "merged/report.md"));
  CHECK(csv_without_wall(scratch.work() / "merged/sweep.csv") ==
        csv_without_wall(scratch.work() / "results/tiny/sweep.csv"));

  const auto missing = scratch.run({"sweep", "merge", "out", "two"});
  CHECK(missing.exit_status == 2);
  CHECK(missing.out.empty());
  REQUIRE(missing.err_lines().size() == 1);
  CHECK(missing.err_lines()[0] ==
        "tpusim: error: sweep merge: 2 of the 3 points of sweep tiny are in none of the folders (the first: "
        "point 0); run its shard (--shard 1/2) again, or give its folder");
  CHECK_FALSE(std::filesystem::exists(scratch.work() / "out"));
}

TEST_CASE("cli: sweep: bad -j, --shard, --progress and merge arguments are one line, exit status 2") {
  const Scratch scratch;
  write_file(scratch.work() / "tiny.yaml", "base: tiny-mlp\nvary:\n  training.numerics: [timing]\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"sweep", "tiny.yaml", "--shard", "3/2"},
       "tpusim: error: --shard 3/2: K must be 1 to 2 (shards are numbered from 1, as Slurm's "
       "SLURM_ARRAY_TASK_ID with --array=1-2)"},
      {{"sweep", "tiny.yaml", "--shard", "0/2"},
       "tpusim: error: --shard 0/2: K must be 1 to 2 (shards are numbered from 1, as Slurm's "
       "SLURM_ARRAY_TASK_ID with --array=1-2)"},
      {{"sweep", "tiny.yaml", "--shard", "two"},
       "tpusim: error: --shard: 'two' is not K/N: give the shard's number K (1 to N) and the number of "
       "shards "
       "N, e.g. 2/4"},
      {{"sweep", "tiny.yaml", "-j", "0"},
       "tpusim: error: --jobs: 0 is out of range: expected 1 to 1024 (see 'tpusim sweep --help')"},
      {{"sweep", "tiny.yaml", "--progress", "fancy"},
       "tpusim: error: --progress: 'fancy' is not a progress mode; valid modes are bar (a line redrawn in "
       "place), plain (lines, for logs) and none"},
      {{"sweep", "merge", "out"},
       "tpusim: error: sweep merge: give the output folder, then the shard folders to join (tpusim sweep "
       "merge OUT DIR1 DIR2 ...)"},
      {{"sweep", "merge", "out", "tiny.yaml"},
       "tpusim: error: 'tiny.yaml' is not a folder (expected a sweep's output folder)"},
  };
  for (const auto& [args, message] : cases) {
    const auto run = scratch.run(args);
    INFO(run.describe());
    CHECK(run.exit_status == 2);
    CHECK(run.out.empty());
    REQUIRE(run.err_lines().size() == 1);
    CHECK(run.err_lines()[0] == message);
  }
  CHECK(scratch.entries() == std::vector<std::string>{"tiny.yaml"});
}

TEST_CASE("cli: sweep: a collective study runs, and a misspelled combination is an error at its line") {
  const Scratch scratch;
  write_file(scratch.work() / "c.yaml",
             "kind: collectives\n"
             "vary:\n"
             "  collective.algorithm: [ring, bucket2d]\n"
             "  collective.bytes: [4KiB, 1MiB]\n"
             "  hardware.topology: [torus:4x4]\n"
             "  collective.group_axes: [all]\n");
  const auto run = scratch.run({"sweep", "c.yaml", "--progress", "none"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK_THAT(run.out,
             Catch::Contains("tpusim sweep c: 4 collective points, 2 skipped where the algorithm does "
                             "not fit"));
  CHECK_THAT(run.out, Catch::Contains("skipped: bucket2d"));
  const auto csv = lines_of(scratch.work() / "results/c/sweep.csv");
  REQUIRE(csv.size() == 5);
  CHECK(csv[1].rfind("0,ring,4KiB,torus:4x4,all,", 0) == 0);
  CHECK_THAT(csv[3], Catch::Contains(",skipped,"));

  write_file(scratch.work() / "bad.yaml",
             "kind: collectives\n"
             "vary:\n"
             "  collective.op: [broadcast]\n"
             "  collective.algorithm: [binomial, ring]\n");
  const auto bad = scratch.run({"sweep", "bad.yaml"});
  CHECK(bad.exit_status == 2);
  REQUIRE(bad.err_lines().size() == 1);
  CHECK(bad.err_lines()[0] ==
        "tpusim: error: bad.yaml:4: vary.collective.algorithm[1]: in point collective.op=broadcast, "
        "collective.algorithm=ring: broadcast has no algorithm 'ring'; its algorithms are binomial, pipeline "
        "(or auto)");
}

TEST_CASE("cli: sweep: the shipped sweeps are listed and check without running") {
  const Scratch scratch;
  const auto list = scratch.run({"sweep", "--list"});
  INFO(list.describe());
  CHECK(list.exit_status == 0);
  CHECK_THAT(list.out, Catch::Contains("lm-s5-mesh"));
  const auto dry = scratch.run({"sweep", "--preset", "lm-s5-mesh", "--dry-run"});
  INFO(dry.describe());
  CHECK(dry.exit_status == 0);
  CHECK_THAT(dry.out, Catch::Contains("sweep lm-s5-mesh: 5 points"));
  CHECK_THAT(dry.out, Catch::Contains("mesh.shape=batch:4;model:128"));
  const auto unknown = scratch.run({"sweep", "--preset", "lm-s5-mehs"});
  CHECK(unknown.exit_status == 2);
  CHECK_THAT(unknown.err, Catch::Contains("unknown sweep preset 'lm-s5-mehs' (did you mean 'lm-s5-mesh'?)"));
  CHECK(scratch.entries().empty());
}
