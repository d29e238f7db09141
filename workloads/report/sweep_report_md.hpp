#pragma once
// report.md, the page a person reads first in a sweep's folder: what ran (the sweep, its base, the varied
// keys, the points, the tpusim version and date), the best point, every point as a table, and the plots.
#include <string>
#include <vector>

#include "workloads/report/chart.hpp"
#include "workloads/report/sweep_document.hpp"

namespace tpusim::workloads {

// `charts`: the plots in plots/ (linked as plots/<name>.png when `images`, else only named: without
// gnuplot there are scripts but no images); `notes`: sentences on what was left out and why.
std::string sweep_report_markdown(const SweepDocument& document, const std::vector<Chart>& charts,
                                  bool images, const std::vector<std::string>& notes);

}  // namespace tpusim::workloads
