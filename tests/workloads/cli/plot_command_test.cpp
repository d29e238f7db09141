// tpusim plot end to end: a real sweep's folder drawn again (valid PNG and SVG, report.md); a folder that is
// not a sweep's is one line and exit status 2; a missing gnuplot or an unwritable folder exit status 3.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "../report/image_checks.hpp"
#include "../report/sweep_fixtures.hpp"
#include "cli_files.hpp"
#include "cli_runner.hpp"

namespace fs = std::filesystem;
using tpusim::cli_test::read_text;
using tpusim::cli_test::Scratch;

namespace {

// A two-point sweep of the tiny MLP on ring-8, run for real.
void run_tiny_sweep(const Scratch& scratch) {
  std::ofstream(scratch.work() / "tiny.yaml") << "name: tiny\n"
                                                 "base: tiny-mlp\n"
                                                 "vary:\n"
                                                 "  mesh.shape: [batch:4;model:2, batch:8;model:1]\n";
  const auto sweep = scratch.run({"sweep", "tiny.yaml"});
  INFO(sweep.describe());
  REQUIRE(sweep.exit_status == 0);
}

}  // namespace

TEST_CASE("cli: plot: a real sweep's folder gets valid PNG and SVG plots and report.md") {
  if (!tpusim::test::have_gnuplot()) {
    WARN("gnuplot is not installed (.ci/install-deps installs it): tpusim plot is not checked");
    return;
  }
  const Scratch scratch;
  run_tiny_sweep(scratch);
  const auto run = scratch.run({"plot", "results/tiny"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(run.err.empty());
  CHECK(run.out == "4 plots (PNG and SVG) in results/tiny/plots/, the report in results/tiny/report.md\n");
  const fs::path plots = scratch.work() / "results/tiny/plots";
  for (const char* name : {"step_time", "throughput", "mfu", "breakdown"}) {
    INFO(name);
    CHECK(tpusim::test::png_problem(plots / (std::string(name) + ".png")) == "");
    CHECK(tpusim::test::svg_problem(plots / (std::string(name) + ".svg")) == "");
    CHECK(fs::file_size(plots / (std::string(name) + ".gp")) > 0);
    CHECK(fs::file_size(plots / (std::string(name) + ".dat")) > 0);
  }
  const std::string report = read_text(scratch.work() / "results/tiny/report.md");
  CHECK_THAT(report, Catch::StartsWith("# Sweep tiny\n"));
  CHECK_THAT(report, Catch::Contains("| base | tiny-mlp |"));
  CHECK_THAT(report, Catch::Contains("| points | 2, 2 ran, 2 fit their HBM |"));
  CHECK_THAT(report, Catch::Contains("| #0 | batch:4;model:2 | 8 |"));
  CHECK_THAT(report, Catch::Contains("| #1 | batch:8;model:1 | 8 |"));
  CHECK_THAT(report, Catch::Contains("Among the points that fit their HBM:\n\n- highest MFU"));
  CHECK_THAT(report, Catch::Contains("![Step time against mesh: tiny](plots/step_time.png)"));
  CHECK_THAT(report, Catch::Contains("![Where the step time goes, per point: tiny](plots/breakdown.png)"));
  // Drawing again replaces the plots.
  const auto again = scratch.run({"plot", "results/tiny/"});
  INFO(again.describe());
  CHECK(again.exit_status == 0);
}

TEST_CASE("cli: plot: a folder that is not a sweep's is one line and exit status 2") {
  const Scratch scratch;
  const auto missing = scratch.run({"plot", "no-such-folder"});
  INFO(missing.describe());
  CHECK(missing.exit_status == 2);
  CHECK(missing.out.empty());
  CHECK(
      missing.err_lines() ==
      std::vector<std::string>{"tpusim: error: 'no-such-folder' is not a folder: give the output folder of a "
                               "sweep (it holds sweep.json)"});
  fs::create_directory(scratch.work() / "empty");
  const auto empty = scratch.run({"plot", "empty"});
  CHECK(empty.exit_status == 2);
  CHECK(empty.err_lines().size() == 1);
  CHECK(scratch.entries() == std::vector<std::string>{"empty/"});
  const auto no_dir = scratch.run({"plot"});
  CHECK(no_dir.exit_status == 2);
  CHECK(no_dir.err_lines().size() == 1);
}

TEST_CASE("cli: plot: without gnuplot, or in a folder it cannot write, exit status 3 and one line") {
  const Scratch scratch;
  fs::create_directories(scratch.work() / "results/s");
  std::ofstream(scratch.work() / "results/s/sweep.json") << tpusim::test::same_cores_sweep_fixture().dump(2);
  const auto no_gnuplot =
      scratch.run_program({"/usr/bin/env", "PATH=/nonexistent", TPUSIM_BINARY, "plot", "results/s"});
  INFO(no_gnuplot.describe());
  CHECK(no_gnuplot.exit_status == 3);
  CHECK(no_gnuplot.err_lines() ==
        std::vector<std::string>{
            "tpusim: error: gnuplot is not installed, so no plots were drawn (apt-get install "
            "gnuplot-nox, or .ci/install-deps)"});
  CHECK(scratch.entries() == std::vector<std::string>{"results/", "results/s/", "results/s/sweep.json"});
  if (!tpusim::test::have_gnuplot()) {
    WARN("gnuplot is not installed: an unwritable folder is not checked");
    return;
  }
  ::chmod((scratch.work() / "results/s").c_str(), 0555);
  const auto read_only = scratch.run_unprivileged({"plot", "results/s"});
  INFO(read_only.describe());
  CHECK(read_only.exit_status == 3);
  REQUIRE(read_only.err_lines().size() == 1);
  CHECK_THAT(read_only.err_lines()[0], Catch::StartsWith("tpusim: error: cannot "));
  CHECK_THAT(read_only.err_lines()[0], Catch::Contains("Permission denied"));
  ::chmod((scratch.work() / "results/s").c_str(), 0755);
  CHECK(scratch.entries() == std::vector<std::string>{"results/", "results/s/", "results/s/sweep.json"});
}
