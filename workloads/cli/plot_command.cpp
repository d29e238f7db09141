// tpusim plot DIR: draws a sweep's plots and report.md again from its sweep.json (workloads/report/
// sweep_plots.hpp), for a sweep run where gnuplot was missing, or after tpusim itself changed.
#include <fmt/format.h>

#include <iostream>

#include "workloads/cli/command.hpp"
#include "workloads/report/gnuplot.hpp"
#include "workloads/report/sweep_plots.hpp"

namespace tpusim::cli {

void add_plot_command(CLI::App& app) {
  static std::string folder;
  auto* command = app.add_subcommand(
      "plot",
      "Draw a sweep's plots and report.md from its output folder's sweep.json (what 'tpusim sweep' does "
      "after writing it): plots/<name>.png and .svg drawn by gnuplot, with the plots/<name>.gp script and "
      "plots/<name>.dat data that draw them (edit the script and run 'gnuplot <name>.gp' in plots/ to redraw "
      "one), and report.md: what ran, the best point, the table of points, the plots.\n"
      "Training sweeps: step_time, throughput (per core) and mfu against cores (one line per strategy: the "
      "varied keys other than those that set the core count), or against the first varied key when every "
      "point has the same cores; breakdown: compute, exposed communication and idle stacked per point.\n"
      "Collective studies: busbw_<op> and ratio_<op> (simulated time / lower bound) against the message "
      "size, one line per algorithm (and topology where several).\n"
      "Needs gnuplot (Debian: gnuplot-nox; .ci/install-deps installs it).\n"
      "Exit status: 0 drawn; 1 gnuplot failed; 2 DIR is not a sweep's output folder (no sweep.json, or not "
      "a sweep's); 3 gnuplot is missing, or DIR cannot be written.");
  command->add_option("dir", folder, "A sweep's output folder (holds sweep.json), e.g. results/lm-s5-mesh")
      ->required();
  command->callback([] {
    // Before anything is written: without gnuplot this command has nothing to give.
    workloads::require_gnuplot();
    const auto outputs = workloads::draw_sweep_outputs(folder, std::cerr);
    std::cout << fmt::format("{} plots (PNG and SVG) in {}/, the report in {}\n", outputs.drawn.size(),
                             outputs.plots, outputs.report);
  });
}

}  // namespace tpusim::cli
