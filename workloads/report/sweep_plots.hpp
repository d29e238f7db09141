#pragma once
// What people look at in a sweep's folder, drawn from its sweep.json (by `tpusim sweep` after writing it, and
// by `tpusim plot DIR` again at any time):
//   plots/      for each chart (sweep_charts.hpp) <name>.png and <name>.svg drawn by gnuplot, and the
//               <name>.gp script and <name>.dat data that draw them; the folder is written as one unit
//   report.md   what ran, the best point, the table, the plots (sweep_report_md.hpp)
#include <ostream>
#include <string>
#include <vector>

#include "workloads/report/sweep_document.hpp"

namespace tpusim::workloads {

// The entries draw_sweep_outputs adds to a sweep's folder: a sweep's folder holding them is still an earlier
// result (kSweepResultFiles must name them too, so that a sweep may replace it).
extern const std::vector<std::string> kSweepPlotOutputs;

struct SweepOutputs {
  std::string report;              // <folder>/report.md
  std::string plots;               // <folder>/plots
  std::vector<std::string> drawn;  // the charts drawn, each plots/<name>.png and .svg; none without gnuplot
  std::string gnuplot_failure;     // with scripts_when_gnuplot_fails: why the images are missing, or ""
};

struct SweepPlotOptions {
  double gnuplot_time_limit_s = 0;  // 0: gnuplot_time_limit_s() (gnuplot.hpp)
  std::string how_to_raise;         // how to raise it, for the message of a gnuplot past it; "": the variable
  // When gnuplot fails or passes its time limit: write plots/ without images and report.md listing the
  // scripts, with a note saying why (SweepOutputs::gnuplot_failure), rather than throw GnuplotFailure and
  // leave an earlier report.md beside results it does not describe (what a sweep wants after a run).
  bool scripts_when_gnuplot_fails = false;
};

// Reads <folder>/sweep.json and writes plots/ and report.md beside it. Without gnuplot the scripts, data
// and report.md are still written, the report says the plots are missing, and one line saying so goes to
// `warnings` (callers that need the images call require_gnuplot() first, gnuplot.hpp). Everything is read
// and checked before anything is written: a folder without a sweep's JSON, or a sweep.json that is not
// whole and consistent, is an InputError (sweep_document.hpp) and leaves plots/ and report.md as they were.
// A folder that cannot be written (disk full, quota, read-only, permission), even when only gnuplot found
// out, is an EnvironmentError naming it; gnuplot failing or passing its time limit a GnuplotFailure (unless
// scripts_when_gnuplot_fails); either, while drawing, leaves plots/ and report.md as they were (report.md is
// written last, once plots/ is in place).
SweepOutputs draw_sweep_outputs(const std::string& folder, std::ostream& warnings,
                                const SweepPlotOptions& options = {});
// The same from a document read already (read_sweep_document), e.g. to check it before looking for gnuplot.
SweepOutputs draw_sweep_outputs(const SweepDocument& document, std::ostream& warnings,
                                const SweepPlotOptions& options = {});

}  // namespace tpusim::workloads
