// tpusim plot DIR: draws a sweep's plots and report.md again from its sweep.json (workloads/report/
// sweep_plots.hpp), for a sweep run where gnuplot was missing, or after tpusim itself changed.
#include <fmt/format.h>

#include <iostream>

#include "topologies/support/child_time_limit.hpp"
#include "topologies/support/folder_lock.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/number_option.hpp"
#include "workloads/report/gnuplot.hpp"
#include "workloads/report/sweep_document.hpp"
#include "workloads/report/sweep_plots.hpp"

namespace tpusim::cli {

CLI::Option* add_plot_time_limit_option(CLI::App* command, int& seconds) {
  return add_whole_number_option(command, "--plot-time-limit", seconds, 1, static_cast<int>(kMaxTimeLimitS),
                                 fmt::format("Seconds gnuplot may take to draw a plot before it is killed "
                                             "(default: {}, or {:g})",
                                             workloads::kGnuplotTimeLimitVariable,
                                             workloads::kDefaultGnuplotTimeLimitS));
}

workloads::SweepPlotOptions sweep_plot_options(int plot_time_limit_s) {
  workloads::SweepPlotOptions options;
  options.gnuplot_time_limit_s =
      plot_time_limit_s > 0 ? double(plot_time_limit_s) : workloads::gnuplot_time_limit_s();
  options.how_to_raise =
      fmt::format("allow more with --plot-time-limit SECONDS or {}", workloads::kGnuplotTimeLimitVariable);
  return options;
}

void add_plot_command(CLI::App& app) {
  static std::string folder;
  static int plot_time_limit_s = 0;  // 0: not given
  auto* command = app.add_subcommand(
      "plot",
      "Draw a sweep's plots and report.md from its output folder's sweep.json (what 'tpusim sweep' does "
      "after writing it): plots/<name>.png and .svg drawn by gnuplot, with the plots/<name>.gp script and "
      "plots/<name>.dat data that draw them (edit the script and run 'gnuplot <name>.gp' in plots/ to redraw "
      "one), and report.md: what ran, the best point, the table of points, the plots.\n"
      "Training sweeps: step_time, throughput (per core) and mfu against cores (one line per strategy: the "
      "varied keys other than those that set the core count), or against the first varied key when every "
      "point has the same cores, or one mark per point when the keys are no grid (listed points); over "
      "core counts, speedup (strong scaling, log-log, with the ideal) and efficiency (weak scaling, with the "
      "ideal 100%); breakdown: compute, exposed communication and idle stacked per point, scaled by the "
      "points that fit (those that do not are hatched).\n"
      "Collective studies: busbw_<op> and ratio_<op> (simulated time / lower bound) against the message "
      "size, one line per algorithm (its colour) and topology where several (its dash type).\n"
      "Legends go below the plots; series, axes and points are named in words, not config keys.\n"
      "Needs gnuplot (Debian: gnuplot-nox; .ci/install-deps installs it).\n"
      "gnuplot has --plot-time-limit seconds per plot (default TPUSIM_GNUPLOT_TIME_LIMIT_S, or 60); one "
      "still running then is killed.\n"
      "Everything read from sweep.json is checked before anything is replaced: a malformed one changes "
      "nothing in DIR.\n"
      "Exit status: 0 drawn; 1 gnuplot failed or passed its time limit (plots/ and report.md stay as "
      "they were); 2 DIR is not a sweep's output folder (no sweep.json, or not a sweep's, or one that is not "
      "whole and consistent: one line naming the key); 3 gnuplot is missing, DIR cannot be written (disk "
      "full, permission denied), or another tpusim is writing it.");
  command->add_option("dir", folder, "A sweep's output folder (holds sweep.json), e.g. results/lm-s5-mesh")
      ->required();
  add_plot_time_limit_option(command, plot_time_limit_s);
  command->callback([] {
    // Bad input first (the document, then the time limit's setting), then a missing gnuplot, all before
    // anything is written.
    const auto document = workloads::read_sweep_document(folder);
    const auto options = sweep_plot_options(plot_time_limit_s);
    workloads::require_gnuplot();
    // A sweep still writing this folder would replace these plots, or they its (folder_lock.hpp).
    const FolderLock lock(folder);
    const auto outputs = workloads::draw_sweep_outputs(document, std::cerr, options);
    std::cout << fmt::format("{} plots (PNG and SVG) in {}/, the report in {}\n", outputs.drawn.size(),
                             outputs.plots, outputs.report);
  });
}

}  // namespace tpusim::cli
