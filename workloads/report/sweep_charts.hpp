#pragma once
// The plots of a sweep, as charts (chart.hpp), from its sweep.json read back (sweep_document.hpp):
//   training sweeps  step_time, throughput (per core), mfu: against cores or the first varied key, one series
//                    per strategy (plot_layout.hpp); over core counts, speedup (strong scaling) or
//                    efficiency (weak scaling) against cores; breakdown: compute, exposed communication and
//                    idle stacked per point
//   collective       busbw and ratio (simulated time / lower bound) against the message size, one chart per
//   studies          op (busbw_<op>, ratio_<op>), one series per algorithm (and topology, group axes, ...
//                    where those vary)
// A chart the rows have no data for is left out, with a note saying why.
#include <string>
#include <vector>

#include "workloads/report/chart.hpp"
#include "workloads/report/plot_layout.hpp"
#include "workloads/report/sweep_document.hpp"

namespace tpusim::workloads {

struct SweepCharts {
  std::vector<Chart> charts;       // none empty
  std::vector<std::string> notes;  // sentences for report.md: what was left out and why
};

SweepCharts training_charts(const SweepDocument& document);    // training_charts.cpp
SweepCharts collective_charts(const SweepDocument& document);  // collective_charts.cpp
SweepCharts sweep_charts(const SweepDocument& document);       // the one of the two for its kind

// The speedup and efficiency charts of the rows drawn against cores (scaling_charts.cpp): none when the
// layout is not by cores or no series has scaling figures.
std::vector<Chart> scaling_charts(const SweepDocument& document, const PlotLayout& layout,
                                  const std::vector<const SweepRow*>& rows);

// The unit to show seconds in so that `largest` reads as a few digits: {"ms", 1e3} for 0.25 s.
struct TimeUnit {
  const char* name;
  double per_second;
};
TimeUnit time_unit_for(double largest_s);

}  // namespace tpusim::workloads
