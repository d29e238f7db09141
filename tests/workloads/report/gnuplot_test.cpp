// Running gnuplot: a script that fails is a GnuplotFailure quoting gnuplot, a missing gnuplot an
// EnvironmentError with the one line that says how to install it; a gnuplot past its time limit is killed
// and named; an image cut short is a GnuplotFailure in a folder that can be written, and an EnvironmentError
// naming the folder in one that cannot (a full disk, stood for by a file size limit, which binds root too).
#include "workloads/report/gnuplot.hpp"

#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <fstream>

#include "fake_gnuplot.hpp"
#include "image_checks.hpp"
#include "sweep_fixtures.hpp"
#include "tests/topologies/support/process_checks.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/environment_error.hpp"

namespace fs = std::filesystem;
using tpusim::test::FakeGnuplot;
using tpusim::workloads::GnuplotFailure;
using tpusim::workloads::GnuplotRun;
using tpusim::workloads::image_problem;
using tpusim::workloads::run_gnuplot;

namespace {

GnuplotRun run_of(const fs::path& folder, const std::string& script, std::vector<std::string> images = {}) {
  GnuplotRun run;
  run.folder = folder.string();
  run.script = script;
  run.images = std::move(images);
  return run;
}

// A script as chart_script() writes them: its images named by `set output`.
void write_script(const fs::path& path) {
  std::ofstream(path) << "set output 'x.png'\nplot x\nset output 'x.svg'\nreplot\n";
}

}  // namespace

TEST_CASE("gnuplot: a missing gnuplot is an EnvironmentError saying how to install it") {
  const tpusim::test::TempFolder temp;
  std::ofstream(temp.path() / "ok.gp") << "print 1\n";
  const tpusim::test::NoGnuplot no_gnuplot;
  CHECK_FALSE(tpusim::workloads::gnuplot_available());
  CHECK_THROWS_MATCHES(tpusim::workloads::require_gnuplot(), tpusim::EnvironmentError,
                       Catch::Message(tpusim::workloads::kGnuplotMissing));
  CHECK_THROWS_AS(run_gnuplot(run_of(temp.path(), "ok.gp")), tpusim::EnvironmentError);
}

TEST_CASE("gnuplot: a failing script is a GnuplotFailure naming it and quoting gnuplot") {
  if (!tpusim::test::have_gnuplot()) {
    WARN("gnuplot is not installed (.ci/install-deps installs it): running it is not checked");
    return;
  }
  const tpusim::test::TempFolder temp;
  std::ofstream(temp.path() / "ok.gp") << "set terminal dumb\nset output 'ok.txt'\nplot x\n";
  run_gnuplot(run_of(temp.path(), "ok.gp", {"ok.txt"}));
  CHECK(std::filesystem::file_size(temp.path() / "ok.txt") > 0);  // in the folder given, by relative name
  std::ofstream(temp.path() / "bad.gp") << "plot 'no-such.dat' using 1:2\n";
  CHECK_THROWS_MATCHES(
      run_gnuplot(run_of(temp.path(), "bad.gp")), GnuplotFailure,
      Catch::Message("gnuplot failed on " + temp.path().string() +
                     "/bad.gp (exit status 1): \"bad.gp\" line 1: No data in plot (warning: Cannot find or "
                     "open file \"no-such.dat\")"));
}

TEST_CASE("gnuplot: the messages name the folder the user will see, not the staging folder") {
  const tpusim::test::TempFolder temp;
  write_script(temp.path() / "x.gp");
  const FakeGnuplot fake(tpusim::test::kFakeGnuplotFails);
  auto run = run_of(temp.path(), "x.gp", {"x.png", "x.svg"});
  run.shown_folder = "results/s/plots";
  CHECK_THROWS_MATCHES(
      run_gnuplot(run), GnuplotFailure,
      Catch::Message("gnuplot failed on results/s/plots/x.gp (exit status 1): \"x.gp\" line 1: "
                     "a fake gnuplot's failure"));
}

TEST_CASE(
    "gnuplot: one past its time limit is killed with what it started, and the line says how to wait longer") {
  const tpusim::test::TempFolder temp;
  write_script(temp.path() / "x.gp");
  const FakeGnuplot fake(tpusim::test::kFakeGnuplotHangs);
  auto run = run_of(temp.path(), "x.gp", {"x.png", "x.svg"});
  run.shown_folder = "results/s/plots";
  run.time_limit_s = 1;
  CHECK_THROWS_MATCHES(run_gnuplot(run), GnuplotFailure,
                       Catch::Message("gnuplot, drawing 'results/s/plots/x.png', did not finish within 1 s; "
                                      "killed it (set TPUSIM_GNUPLOT_TIME_LIMIT_S to allow more)"));
  const auto pids = tpusim::test_support::read_pids((fake.folder() / "pids").string());
  REQUIRE(pids.size() == 2);
  for (const pid_t pid : pids) CHECK(tpusim::test_support::process_gone(pid));
  run.how_to_raise = "allow more with --plot-time-limit SECONDS";
  CHECK_THROWS_WITH(run_gnuplot(run),
                    Catch::EndsWith("killed it (allow more with --plot-time-limit SECONDS)"));
}

TEST_CASE("gnuplot: its time limit comes from TPUSIM_GNUPLOT_TIME_LIMIT_S, a minute unless set") {
  ::unsetenv("TPUSIM_GNUPLOT_TIME_LIMIT_S");
  CHECK(tpusim::workloads::gnuplot_time_limit_s() == 60);
  ::setenv("TPUSIM_GNUPLOT_TIME_LIMIT_S", "2.5", 1);
  CHECK(tpusim::workloads::gnuplot_time_limit_s() == 2.5);
  ::setenv("TPUSIM_GNUPLOT_TIME_LIMIT_S", "-3", 1);
  CHECK_THROWS_WITH(
      tpusim::workloads::gnuplot_time_limit_s(),
      "TPUSIM_GNUPLOT_TIME_LIMIT_S: '-3' is not a time limit: expected a number of seconds more "
      "than 0 and at most 604800 (a week)");
  ::unsetenv("TPUSIM_GNUPLOT_TIME_LIMIT_S");
}

TEST_CASE("gnuplot: images are whole: a PNG to its IEND chunk, an SVG to </svg>") {
  const tpusim::test::TempFolder temp;
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(temp.path() / name, std::ios::binary) << bytes;
    return image_problem((temp.path() / name).string());
  };
  const std::string signature("\x89PNG\r\n\x1a\n", 8), iend("\0\0\0\0IEND\xae\x42\x60\x82", 12);
  CHECK(write("whole.png", signature + std::string(100, 'x') + iend) == "");
  CHECK(write("short.png", signature + std::string(100, 'x')) == "is cut short: no IEND chunk at its end");
  CHECK(write("other.png", "GIF89a" + std::string(100, 'x') + iend) == "is not a PNG (no PNG signature)");
  CHECK(write("empty.png", "") == "is empty");
  CHECK(image_problem((temp.path() / "missing.png").string()) == "is missing");
  CHECK(write("whole.svg", "<svg>\n</svg>\n\n") == "");
  CHECK(write("short.svg", "<svg>\n<g>\n</g") == "is cut short: it does not end in </svg>");
  CHECK(write("notes.txt", "any") == "");
}

TEST_CASE("gnuplot: an image cut short in a folder that can be written is gnuplot's failure") {
  const tpusim::test::TempFolder temp;
  write_script(temp.path() / "x.gp");
  const FakeGnuplot fake(tpusim::test::kFakeGnuplotCutsShort);
  CHECK_THROWS_MATCHES(run_gnuplot(run_of(temp.path(), "x.gp", {"x.png", "x.svg"})), GnuplotFailure,
                       Catch::Message("gnuplot ran " + temp.path().string() +
                                      "/x.gp, but x.png is cut short: no IEND chunk at its end"));
}

TEST_CASE("gnuplot: images cut short by a full disk are an EnvironmentError naming the folder") {
  const tpusim::test::TempFolder temp;
  write_script(temp.path() / "x.gp");
  const FakeGnuplot fake(tpusim::test::kFakeGnuplotDraws);
  // Without a limit the fake draws whole images; under one it is cut short, and so is the folder's probe.
  run_gnuplot(run_of(temp.path(), "x.gp", {"x.png", "x.svg"}));
  CHECK(tpusim::test::png_problem(temp.path() / "x.png") == "");
  // In a child, whose file size limit (which binds root as well) goes with it: 16 KiB per file.
  const auto disk_full = [&]() -> std::string {
    const rlimit limit{16384, 16384};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG rather than killing
    auto run = run_of(temp.path(), "x.gp", {"x.png", "x.svg"});
    run.shown_folder = "results/s/plots";
    run_gnuplot(run);
    return "drawn";
  };
  CHECK_THROWS_MATCHES(tpusim::run_in_child(disk_full, 60), tpusim::EnvironmentError,
                       Catch::Message("cannot write the plots in 'results/s/plots': File too large"));
  // The probe leaves nothing behind.
  std::vector<std::string> entries;
  for (const auto& entry : fs::directory_iterator(temp.path())) entries.push_back(entry.path().filename());
  std::sort(entries.begin(), entries.end());
  CHECK(entries == std::vector<std::string>{"x.gp", "x.png", "x.svg"});
}
