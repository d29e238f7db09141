#pragma once
// Where a training sweep's points go on its plots. Against cores (a log2 axis) when the points have more
// than one core count, one series per strategy: the varied keys other than those that set the core count
// (a key sets it when each of its values has one core count), such as the mesh layout or mapping. When every
// point has the same cores, the first varied key is the x axis instead, one label per value, and the other
// keys make the series; unless the varied keys are no grid (most of their combinations missing, as when a
// sweep lists its points), when each point is a category of its own, labelled by what it sets.
//
// Everything is in words (plot_words.hpp). A series is named by its keys' values, but a key whose values
// follow from an earlier key's (zipped keys move together) adds nothing and is left out, unless that earlier
// value defers to another key (a mesh shape from_mapping says nothing until its mapping is named).
#include <string>
#include <utility>
#include <vector>

#include "workloads/report/sweep_document.hpp"

namespace tpusim::workloads {

struct PlotLayout {
  bool by_cores = false;
  bool ordered = true;                                 // x has an order (cores, a key's values) to join
  std::string x_label;                                 // "cores", the varied key on the x axis, in words
  std::vector<std::pair<double, std::string>> x_tics;  // (x, label)
  std::string legend_title;                            // the keys that name the series, ", " between
  std::vector<std::string> series_titles;              // in order of first appearance
  std::vector<std::string>
      series_settings;  // the same, each value with its key unless it says it ("batch 128")
  // Per row given, in order: its series, its x, and where it is in words ("8 cores, mapping rings").
  std::vector<std::size_t> series_of;
  std::vector<double> x_of;
  std::vector<std::string> row_labels;
};

// `rows` are those to draw, in point order; every one has a finite "cores".
PlotLayout plot_layout(const SweepDocument& document, const std::vector<const SweepRow*>& rows);

// Whether a varied key sets the core count: each of its values (as text) comes with one core count, given
// one (value, cores) pair per point. The plots put such keys on x; the scaling figures leave them out of a
// series.
bool sets_core_count(const std::vector<std::pair<std::string, double>>& value_and_cores);

}  // namespace tpusim::workloads
