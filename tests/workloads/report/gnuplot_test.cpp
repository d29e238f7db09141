// Running gnuplot: a script that fails is a std::runtime_error quoting gnuplot, a missing gnuplot an
// EnvironmentError with the one line that says how to install it.
#include "workloads/report/gnuplot.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "image_checks.hpp"
#include "sweep_fixtures.hpp"
#include "topologies/support/environment_error.hpp"

using tpusim::workloads::run_gnuplot;

TEST_CASE("gnuplot: a missing gnuplot is an EnvironmentError saying how to install it") {
  const tpusim::test::TempFolder temp;
  std::ofstream(temp.path() / "ok.gp") << "print 1\n";
  const tpusim::test::NoGnuplot no_gnuplot;
  CHECK_FALSE(tpusim::workloads::gnuplot_available());
  CHECK_THROWS_MATCHES(tpusim::workloads::require_gnuplot(), tpusim::EnvironmentError,
                       Catch::Message(tpusim::workloads::kGnuplotMissing));
  CHECK_THROWS_AS(run_gnuplot(temp.path().string(), "ok.gp"), tpusim::EnvironmentError);
}

TEST_CASE("gnuplot: a failing script is a runtime_error naming it and quoting gnuplot") {
  if (!tpusim::test::have_gnuplot()) {
    WARN("gnuplot is not installed (.ci/install-deps installs it): running it is not checked");
    return;
  }
  const tpusim::test::TempFolder temp;
  std::ofstream(temp.path() / "ok.gp") << "set terminal dumb\nset output 'ok.txt'\nplot x\n";
  run_gnuplot(temp.path().string(), "ok.gp");
  CHECK(std::filesystem::file_size(temp.path() / "ok.txt") > 0);  // in the folder given, by relative name
  std::ofstream(temp.path() / "bad.gp") << "plot 'no-such.dat' using 1:2\n";
  CHECK_THROWS_WITH(
      run_gnuplot(temp.path().string(), "bad.gp"),
      "gnuplot failed on " + temp.path().string() +
          "/bad.gp (exit status 1): \"bad.gp\" line 1: No data in plot (warning: Cannot find or "
          "open file \"no-such.dat\")");
}
