// A sweep's plots and report.md drawn from its sweep.json: every plot a valid PNG and SVG beside the script
// and data that draw it, report.md with the table, the best point and the image links; without gnuplot the
// scripts and the report are still written, with one warning line.
#include "workloads/report/sweep_plots.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "image_checks.hpp"
#include "sweep_fixtures.hpp"
#include "topologies/support/input_error.hpp"

namespace fs = std::filesystem;
using tpusim::test::read_text;
using tpusim::test::TempFolder;
using tpusim::workloads::draw_sweep_outputs;

namespace {

void check_drawn(const fs::path& plots, const std::string& name) {
  INFO(name);
  for (const char* extension : {".gp", ".dat", ".png", ".svg"}) {
    const auto path = plots / (name + extension);
    REQUIRE(fs::exists(path));
    CHECK(fs::file_size(path) > 0);
  }
  CHECK(tpusim::test::png_problem(plots / (name + ".png")) == "");
  CHECK(tpusim::test::svg_problem(plots / (name + ".svg")) == "");
}

}  // namespace

TEST_CASE("sweep plots: a training sweep over core counts draws four plots and report.md") {
  if (!tpusim::test::have_gnuplot()) {
    WARN("gnuplot is not installed (.ci/install-deps installs it): the plots are not checked");
    return;
  }
  const TempFolder temp;
  const std::string folder = temp.sweep_folder("scaling", tpusim::test::training_sweep_fixture());
  std::ostringstream warnings;
  const auto outputs = draw_sweep_outputs(folder, warnings);
  CHECK(warnings.str().empty());
  CHECK(outputs.drawn == std::vector<std::string>{"step_time", "throughput", "mfu", "breakdown"});
  for (const char* name : {"step_time", "throughput", "mfu", "breakdown"})
    check_drawn(fs::path(folder) / "plots", name);
  // Two strategies: rings at 8, 32 and 128 cores; linear only at 8 (32 does not fit, 128 failed).
  const std::string step = read_text(fs::path(folder) / "plots/step_time.dat");
  CHECK_THAT(
      step,
      Catch::Contains("# index 0: rings\n# cores (log2 scale)\tstep time (ms)\n8\t250\n32\t275\n128\t300\n"));
  CHECK_THAT(step, Catch::Contains("# index 1: linear\n# cores (log2 scale)\tstep time (ms)\n8\t325\n"));
  CHECK_THAT(read_text(fs::path(folder) / "plots/throughput.gp"),
             Catch::Contains("set ylabel 'model TFLOP/s per core'"));
  CHECK_THAT(read_text(fs::path(folder) / "plots/breakdown.dat"),
             Catch::Contains("\n4\t32 cores, mapping linear (no fit)\t"));

  const std::string report = read_text(outputs.report);
  CHECK_THAT(report,
             Catch::StartsWith("# Sweep fixture-scaling\n\na fixture: two mappings over three slices\n"));
  CHECK_THAT(report, Catch::Contains("| base | lm-s0 |"));
  CHECK_THAT(report, Catch::Contains("| varied | mesh.mapping: `rings`, `linear`<br>hardware.topology: "));
  CHECK_THAT(report, Catch::Contains("| points | 6, 5 ran, 4 fit their HBM |"));
  CHECK_THAT(report, Catch::Contains("| tpusim | 0.1.0 |"));
  CHECK_THAT(report,
             Catch::Contains("| # | mesh.mapping | hardware.topology | cores | mesh | step time | MFU |"));
  CHECK_THAT(report,
             Catch::Contains(
                 "| #0 | rings | tpu-v2-8 | 8 | batch:8 | 250 ms | 60.0% | 20.0% | 1 GiB / 8 GiB | yes |"));
  CHECK_THAT(
      report,
      Catch::Contains(
          "| #4 | linear | tpu-v2-32 | 32 | batch:32 | 357.5 ms | 42.0% | 20.0% | 9 GiB / 8 GiB | NO |"));
  CHECK_THAT(report,
             Catch::Contains(
                 "| #5 | linear | tpu-v2-128 | 128 | batch:128 | error: the fixture's point 5 failed |"));
  CHECK_THAT(report,
             Catch::Contains("- highest MFU and lowest step time: **point #0** (mesh.mapping `rings`, "
                             "hardware.topology `tpu-v2-8`): 250 ms per step, 60.0% MFU, on 8 cores\n"));
  for (const char* name : {"step_time", "throughput", "mfu", "breakdown"})
    CHECK_THAT(report, Catch::Contains(std::string("](plots/") + name + ".png)"));
  CHECK_THAT(report, Catch::Contains("![Step time against cores: fixture-scaling](plots/step_time.png)"));
  CHECK_THAT(report, Catch::Contains("1 of 6 points did not run"));
  CHECK_THAT(report, Catch::Contains("1 points do not fit their HBM"));
}

TEST_CASE("sweep plots: on one core count the plots go against the first varied key") {
  if (!tpusim::test::have_gnuplot()) {
    WARN("gnuplot is not installed (.ci/install-deps installs it): the plots are not checked");
    return;
  }
  const TempFolder temp;
  const std::string folder = temp.sweep_folder("layout", tpusim::test::same_cores_sweep_fixture());
  std::ostringstream warnings;
  draw_sweep_outputs(folder, warnings);
  for (const char* name : {"step_time", "throughput", "mfu", "breakdown"})
    check_drawn(fs::path(folder) / "plots", name);
  const std::string script = read_text(fs::path(folder) / "plots/mfu.gp");
  CHECK_THAT(script, Catch::Contains("set xlabel 'mesh'"));
  CHECK_THAT(script, Catch::Contains(
                         "set xtics ('batch 16 × model 2' 0, 'batch 8 × model 4' 1, 'batch 4 × model 8' 2)"));
  CHECK_THAT(read_text(fs::path(folder) / "report.md"),
             Catch::Contains("![Step time against mesh: fixture-layout]"));
}

TEST_CASE("sweep plots: a collective study draws busbw and the ratio to the bound per op") {
  if (!tpusim::test::have_gnuplot()) {
    WARN("gnuplot is not installed (.ci/install-deps installs it): the plots are not checked");
    return;
  }
  const TempFolder temp;
  const std::string folder = temp.sweep_folder("collectives", tpusim::test::collective_sweep_fixture());
  std::ostringstream warnings;
  draw_sweep_outputs(folder, warnings);
  const fs::path plots = fs::path(folder) / "plots";
  for (const char* name : {"busbw_allreduce", "ratio_allreduce", "busbw_allgather", "ratio_allgather"})
    check_drawn(plots, name);
  // One series per algorithm (a colour) and topology (a dash type); the group axes follow the topology and
  // name nothing. Sizes on a log2 axis.
  const std::string script = read_text(plots / "busbw_allreduce.gp");
  CHECK_THAT(script, Catch::Contains("set key outside below center horizontal Left reverse title "
                                     "\"\\nalgorithm (colour), topology (dash)\""));
  CHECK_THAT(script, Catch::Contains("keyentry with linespoints lt 2 dt 1 title 'bidir ring'"));
  CHECK_THAT(script, Catch::Contains("keyentry with lines lc rgb '#000000' lw 2 dt 2 title 'torus-8x8'"));
  CHECK_THAT(read_text(plots / "busbw_allreduce.dat"), Catch::Contains("# index 3: bidir ring, torus-8x8\n"));
  CHECK_THAT(script, Catch::Contains("set logscale x 2"));
  CHECK_THAT(script, Catch::Contains("'1 KiB' 1024"));
  CHECK_THAT(read_text(plots / "ratio_allreduce.gp"), Catch::Contains("set logscale y"));
  const std::string report = read_text(fs::path(folder) / "report.md");
  CHECK_THAT(report, Catch::Contains("## Best algorithms"));
  CHECK_THAT(report, Catch::Contains("| allreduce | ring-8 | 64 KiB | ring |"));
  CHECK_THAT(report, Catch::Contains("| allreduce | ring-8 | 256 KiB | bidir\\_ring |"));
  CHECK_THAT(report,
             Catch::Contains("| op | algorithms | topology | group\\_axes | size | time | algbw | busbw |"));
  CHECK_THAT(report, Catch::Contains("![Bus bandwidth of allreduce against message size: "
                                     "fixture-collectives](plots/busbw_allreduce.png)"));
}

TEST_CASE("sweep plots: collective rows without busbw or a ratio are reported, not plotted") {
  auto json = tpusim::test::collective_sweep_fixture();
  // null: what tpusim writes for a figure it could not compute (NaN).
  for (auto& row : json["runs"]) row["busbw_Bps"] = nullptr, row["ratio_to_lower_bound"] = nullptr;
  const TempFolder temp;
  const std::string folder = temp.sweep_folder("bare", json);
  std::ostringstream warnings;
  const auto outputs = draw_sweep_outputs(folder, warnings);
  CHECK(outputs.drawn.empty());
  CHECK_FALSE(fs::exists(fs::path(folder) / "plots"));
  const std::string report = read_text(outputs.report);
  CHECK_THAT(report,
             Catch::Contains("No busbw\\_allreduce plot: the rows of allreduce have no busbw\\_Bps column."));
  CHECK_THAT(report, Catch::Contains("No ratio\\_allgather plot"));
  CHECK_THAT(report, Catch::Contains("| allreduce | ring | ring-8 | x | 1 KiB |"));
}

TEST_CASE("sweep plots: without gnuplot the scripts, data and report are written, with one warning") {
  const TempFolder temp;
  const std::string folder = temp.sweep_folder("scaling", tpusim::test::training_sweep_fixture());
  std::ostringstream warnings;
  {
    const tpusim::test::NoGnuplot no_gnuplot;
    const auto outputs = draw_sweep_outputs(folder, warnings);
    CHECK(outputs.drawn.empty());
  }
  CHECK(warnings.str() ==
        "tpusim: warning: gnuplot is not installed, so no plots were drawn (apt-get install gnuplot-nox, or "
        ".ci/install-deps)\n");
  CHECK(fs::exists(fs::path(folder) / "plots/step_time.gp"));
  CHECK(fs::exists(fs::path(folder) / "plots/step_time.dat"));
  CHECK_FALSE(fs::exists(fs::path(folder) / "plots/step_time.png"));
  const std::string report = read_text(fs::path(folder) / "report.md");
  CHECK_THAT(report, Catch::Contains("- Step time against cores: fixture-scaling (`plots/step_time.gp`)"));
  CHECK_THAT(report, Catch::Contains("gnuplot is not installed"));
  CHECK_THAT(report, !Catch::Contains("!["));
}

TEST_CASE("sweep plots: drawing again replaces plots/, but never a file of someone else's") {
  const TempFolder temp;
  const std::string folder = temp.sweep_folder("again", tpusim::test::training_sweep_fixture());
  std::ostringstream warnings;
  draw_sweep_outputs(folder, warnings);
  std::ofstream(fs::path(folder) / "plots/old_plot.gp") << "# an earlier drawing's\n";
  draw_sweep_outputs(folder, warnings);
  CHECK_FALSE(fs::exists(fs::path(folder) / "plots/old_plot.gp"));
  std::ofstream(fs::path(folder) / "plots/notes.txt") << "mine\n";
  CHECK_THROWS_AS(draw_sweep_outputs(folder, warnings), tpusim::InputError);
  CHECK(fs::exists(fs::path(folder) / "plots/notes.txt"));
}
