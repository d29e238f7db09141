#pragma once
// Where a training sweep's points go on its plots. Against cores (a log2 axis) when the points have more
// than one core count, one series per strategy: the varied keys other than those that set the core count
// (a key sets it when each of its values has one core count), such as the mesh layout or mapping. When every
// point has the same cores, the first varied key is the x axis instead, one label per value, and the other
// keys make the series.
#include <string>
#include <utility>
#include <vector>

#include "workloads/report/sweep_document.hpp"

namespace tpusim::workloads {

struct PlotLayout {
  bool by_cores = false;
  std::string x_label;                                 // "cores", or the varied key on the x axis
  std::vector<std::pair<double, std::string>> x_tics;  // (x, label)
  std::string legend_title;                            // the strategy keys, ", " between
  std::vector<std::string> series_titles;              // in order of first appearance
  // Per row given, in order: its series and its x.
  std::vector<std::size_t> series_of;
  std::vector<double> x_of;
};

// `rows` are those to draw, in point order; every one has a finite "cores".
PlotLayout plot_layout(const SweepDocument& document, const std::vector<const SweepRow*>& rows);

// Whether a varied key sets the core count: each of its values (as text) comes with one core count, given
// one (value, cores) pair per point. The plots put such keys on x; the scaling figures leave them out of a
// series.
bool sets_core_count(const std::vector<std::pair<std::string, double>>& value_and_cores);

}  // namespace tpusim::workloads
