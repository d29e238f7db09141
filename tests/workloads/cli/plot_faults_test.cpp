// tpusim plot and tpusim sweep end to end under faults: a malformed sweep.json (chosen, and random edits)
// exits 2 with one line and changes nothing; a disk that fills while the plots are drawn exits 3 naming the
// folder (a file size limit stands for the full disk: it binds root, whom permissions do not); a gnuplot
// that never exits is killed at its time limit: `tpusim plot` exits 1 and changes nothing, a sweep keeps
// its results, warns and exits 0, and so does a search.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <random>

#include "../report/fake_gnuplot.hpp"
#include "../report/sweep_fixtures.hpp"
#include "cli_runner.hpp"
#include "tests/workloads/search/lm32_config.hpp"

namespace fs = std::filesystem;
using tpusim::cli_test::CliRun;
using tpusim::cli_test::Scratch;
using tpusim::test::FakeGnuplot;

namespace {

std::map<std::string, std::string> outputs_of(const fs::path& folder) {
  return tpusim::test::files_beside_sweep_json(folder);
}

// tpusim with `args` under a file size limit of 16 KiB a file, writes past it failing with EFBIG (SIGXFSZ
// ignored, which its children inherit): a disk that is full for anything larger.
CliRun run_on_full_disk(const Scratch& scratch, const std::string& args) {
  return scratch.run_program(
      {"/bin/bash", "-c", std::string("ulimit -f 16 && trap '' XFSZ && exec ") + TPUSIM_BINARY + " " + args});
}

// A sweep's folder with a valid sweep.json, drawn once (by the fake gnuplot on PATH).
fs::path drawn_folder(const Scratch& scratch) {
  const fs::path folder = scratch.work() / "results/s";
  fs::create_directories(folder);
  std::ofstream(folder / "sweep.json") << tpusim::test::training_sweep_fixture().dump(2);
  const auto drawn = scratch.run({"plot", "results/s"});
  INFO(drawn.describe());
  REQUIRE(drawn.exit_status == 0);
  return folder;
}

}  // namespace

TEST_CASE("cli: plot: a malformed sweep.json exits 2 with one line and changes nothing") {
  const Scratch scratch;
  const FakeGnuplot fake(tpusim::test::kFakeGnuplotDraws);
  const fs::path folder = drawn_folder(scratch);
  const auto before = outputs_of(folder);
  REQUIRE(before.count("report.md") == 1);
  REQUIRE(before.count("plots/step_time.png") == 1);
  for (const auto& bad : tpusim::test::malformed_sweeps()) {
    INFO(bad.what);
    std::ofstream(folder / "sweep.json", std::ios::trunc) << bad.text;
    const auto run = scratch.run({"plot", "results/s"});
    INFO(run.describe());
    CHECK(run.exit_status == 2);
    CHECK(run.out.empty());
    REQUIRE(run.err_lines().size() == 1);
    CHECK_THAT(run.err_lines()[0], Catch::StartsWith("tpusim: error: results/s/sweep.json" + bad.message));
    CHECK(outputs_of(folder) == before);
  }
  // Checked before gnuplot is looked for: bad input is bad input on any machine.
  const auto no_gnuplot =
      scratch.run_program({"/usr/bin/env", "PATH=/nonexistent", TPUSIM_BINARY, "plot", "results/s"});
  CHECK(no_gnuplot.exit_status == 2);
}

TEST_CASE("cli: plot: random edits of sweep.json draw or exit 2 with one line, never anything else") {
  std::mt19937 random(2028);
  const Scratch scratch;
  const FakeGnuplot fake(tpusim::test::kFakeGnuplotDraws);
  const fs::path folder = drawn_folder(scratch);
  auto before = outputs_of(folder);
  const std::string valid = tpusim::test::training_sweep_fixture().dump(2);
  int drawn = 0, refused = 0;
  for (int edit = 0; edit < 30; ++edit) {
    std::string text = valid;
    // Mostly a digit of a number, or a byte of anything; a few at once.
    for (int n = std::uniform_int_distribution<int>(1, 3)(random); n > 0; --n) {
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, text.size() - 1)(random);
      text[at] = edit % 2 == 0 ? static_cast<char>('0' + std::uniform_int_distribution<int>(0, 9)(random))
                               : static_cast<char>(std::uniform_int_distribution<int>(0, 255)(random));
    }
    std::ofstream(folder / "sweep.json", std::ios::binary | std::ios::trunc) << text;
    const auto run = scratch.run({"plot", "results/s"});
    INFO("edit " << edit << ": " << run.describe());
    REQUIRE((run.exit_status == 0 || run.exit_status == 2));
    if (run.exit_status == 0) {
      ++drawn;
      CHECK(run.err.empty());
      before = outputs_of(folder);
    } else {
      ++refused;
      REQUIRE(run.err_lines().size() == 1);
      CHECK_THAT(run.err_lines()[0], Catch::StartsWith("tpusim: error: results/s/sweep.json"));
      CHECK(run.err.find("json.exception") == std::string::npos);
      CHECK(outputs_of(folder) == before);
    }
  }
  CHECK(drawn > 0);
  CHECK(refused > 0);
}

TEST_CASE("cli: plot: a disk that fills while drawing exits 3 naming the folder, and changes nothing") {
  const Scratch scratch;
  const FakeGnuplot fake(tpusim::test::kFakeGnuplotDraws);
  const fs::path folder = drawn_folder(scratch);
  const auto before = outputs_of(folder);
  const auto run = run_on_full_disk(scratch, "plot results/s");
  INFO(run.describe());
  CHECK(run.exit_status == 3);
  CHECK(run.err_lines() == std::vector<std::string>{
                               "tpusim: error: cannot write the plots in 'results/s/plots': File too large"});
  CHECK(outputs_of(folder) == before);
}

TEST_CASE("cli: plot: a gnuplot that never exits is killed at the time limit: exit 1, nothing changed") {
  const Scratch scratch;
  fs::path folder;
  {
    const FakeGnuplot draws(tpusim::test::kFakeGnuplotDraws);
    folder = drawn_folder(scratch);
  }
  const auto before = outputs_of(folder);
  const FakeGnuplot hangs(tpusim::test::kFakeGnuplotHangs);
  const auto run = scratch.run({"plot", "results/s", "--plot-time-limit", "1"});
  INFO(run.describe());
  CHECK(run.exit_status == 1);
  CHECK(run.err_lines() ==
        std::vector<std::string>{
            "tpusim: failure: gnuplot, drawing 'results/s/plots/step_time.png', did not finish "
            "within 1 s; killed it (allow more with --plot-time-limit SECONDS or "
            "TPUSIM_GNUPLOT_TIME_LIMIT_S)"});
  CHECK(outputs_of(folder) == before);
  // The variable sets the limit too; one that is not a time is one line, exit 2.
  const auto by_variable = scratch.run_program(
      {"/usr/bin/env", "TPUSIM_GNUPLOT_TIME_LIMIT_S=0.5", TPUSIM_BINARY, "plot", "results/s"});
  CHECK(by_variable.exit_status == 1);
  CHECK_THAT(by_variable.err, Catch::Contains("did not finish within 0.5 s"));
  const auto bad = scratch.run_program(
      {"/usr/bin/env", "TPUSIM_GNUPLOT_TIME_LIMIT_S=forever", TPUSIM_BINARY, "plot", "results/s"});
  CHECK(bad.exit_status == 2);
  CHECK(bad.err_lines() ==
        std::vector<std::string>{"tpusim: error: TPUSIM_GNUPLOT_TIME_LIMIT_S: 'forever' is not a time limit: "
                                 "expected a number of seconds more than 0 and at most 604800 (a week)"});
  CHECK(outputs_of(folder) == before);
}

TEST_CASE("cli: sweep: a hung gnuplot warns after the results, a full disk while drawing exits 3") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "tiny.yaml") << "name: tiny\n"
                                                 "base: tiny-mlp\n"
                                                 "vary:\n"
                                                 "  mesh.shape: [batch:4;model:2, batch:8;model:1]\n"
                                                 "  training.numerics: [timing]\n";
  {
    const FakeGnuplot hangs(tpusim::test::kFakeGnuplotHangs);
    const auto run = scratch.run({"sweep", "tiny.yaml", "--plot-time-limit", "1", "--progress", "none"});
    INFO(run.describe());
    CHECK(run.exit_status == 0);
    CHECK(run.err_lines() ==
          std::vector<std::string>{
              "tpusim: warning: plots not drawn: gnuplot, drawing "
              "'results/tiny/plots/step_time.png', did not finish within 1 s; killed it (allow "
              "more with --plot-time-limit SECONDS or TPUSIM_GNUPLOT_TIME_LIMIT_S) (the results "
              "stand; 'tpusim plot results/tiny' draws them again)"});
    const auto outputs = outputs_of(scratch.work() / "results/tiny");
    CHECK(outputs.count("sweep.csv") == 1);
    CHECK(outputs.count("plots/step_time.gp") == 1);
    CHECK(outputs.count("plots/step_time.png") == 0);
    CHECK_THAT(outputs.at("report.md"), Catch::Contains("did not finish within 1 s"));
  }
  // Run again, every point done: only the summary and the plots are written, and the plots do not fit.
  const FakeGnuplot draws(tpusim::test::kFakeGnuplotDraws);
  const auto full = run_on_full_disk(scratch, "sweep tiny.yaml --progress none");
  INFO(full.describe());
  CHECK(full.exit_status == 3);
  CHECK(full.err_lines() ==
        std::vector<std::string>{
            "tpusim: error: cannot write the plots in 'results/tiny/plots': File too large "
            "(the results are written: results/tiny/sweep.csv and sweep.json)"});
  CHECK(fs::is_regular_file(scratch.work() / "results/tiny/sweep.json"));
}

TEST_CASE("cli: search: a hung gnuplot is killed at its time limit, and the search's results stay") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "lm-32.yaml") << tpusim::workloads::test::lm32_yaml("  max_candidates: 3\n");
  const FakeGnuplot hangs(tpusim::test::kFakeGnuplotHangs);
  const auto run = scratch.run_program({"/usr/bin/env", "TPUSIM_GNUPLOT_TIME_LIMIT_S=0.5", TPUSIM_BINARY,
                                        "search", "lm-32.yaml", "--progress", "none"});
  INFO(run.describe());
  CHECK(run.exit_status == 0);
  CHECK(run.err_lines() ==
        std::vector<std::string>{
            "tpusim: warning: pareto plot not drawn: gnuplot, drawing "
            "'results/lm-32-search/pareto.png', did not finish within 0.5 s; killed it (set "
            "TPUSIM_GNUPLOT_TIME_LIMIT_S to allow more)"});
  const fs::path folder = scratch.work() / "results/lm-32-search";
  for (const char* file : {"search.json", "candidates.csv", "best.yaml", "pareto.gp", "pareto.dat"})
    CHECK(fs::is_regular_file(folder / file));
  CHECK_FALSE(fs::exists(folder / "pareto.png"));
}

TEST_CASE("cli: sweep: a time limit setting that is not a time is one line, exit 2, and nothing written") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "tiny.yaml") << "name: tiny\nbase: tiny-mlp\n";
  for (const char* setting : {"TPUSIM_CHILD_TIME_LIMIT_S=1e3", "TPUSIM_GNUPLOT_TIME_LIMIT_S="}) {
    const auto run = scratch.run_program({"/usr/bin/env", setting, TPUSIM_BINARY, "sweep", "tiny.yaml"});
    INFO(run.describe());
    CHECK(run.exit_status == 2);
    REQUIRE(run.err_lines().size() == 1);
    CHECK_THAT(run.err_lines()[0], Catch::Contains("is not a time limit: expected a number of seconds"));
    CHECK(scratch.entries() == std::vector<std::string>{"tiny.yaml"});
  }
}
