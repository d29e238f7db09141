#pragma once
// What people look at in a sweep's folder, drawn from its sweep.json (by `tpusim sweep` after writing it, and
// by `tpusim plot DIR` again at any time):
//   plots/      for each chart (sweep_charts.hpp) <name>.png and <name>.svg drawn by gnuplot, and the
//               <name>.gp script and <name>.dat data that draw them; the folder is written as one unit
//   report.md   what ran, the best point, the table, the plots (sweep_report_md.hpp)
#include <ostream>
#include <string>
#include <vector>

namespace tpusim::workloads {

// The entries draw_sweep_outputs adds to a sweep's folder: a sweep's folder holding them is still an earlier
// result (kSweepResultFiles must name them too, so that a sweep may replace it).
extern const std::vector<std::string> kSweepPlotOutputs;

struct SweepOutputs {
  std::string report;              // <folder>/report.md
  std::string plots;               // <folder>/plots
  std::vector<std::string> drawn;  // the charts drawn, each plots/<name>.png and .svg; none without gnuplot
};

// Reads <folder>/sweep.json and writes plots/ and report.md beside it. Without gnuplot the scripts, data
// and report.md are still written, the report says the plots are missing, and one line saying so goes to
// `warnings` (callers that need the images call require_gnuplot() first, gnuplot.hpp). A folder without a
// sweep's JSON is an InputError; one that cannot be written an EnvironmentError; gnuplot failing a
// std::runtime_error.
SweepOutputs draw_sweep_outputs(const std::string& folder, std::ostream& warnings);

}  // namespace tpusim::workloads
