#pragma once
// The plot of a search (pareto.png and .svg): step time against memory per core of every candidate that
// fits, the Pareto front joined and each of its points labelled with its mesh, and the config's own layout
// ringed and labelled, so that a reader sees where the config stands against what the search found. Axes
// whose values span more than a decade are logarithmic, so that the front, in the corner of least memory and
// time, is not squeezed against it; each axis is in the unit its values read best in.
#include "workloads/report/chart.hpp"
#include "workloads/search/search_run.hpp"

namespace tpusim::workloads {

Chart pareto_chart(const SearchResult& result);

}  // namespace tpusim::workloads
