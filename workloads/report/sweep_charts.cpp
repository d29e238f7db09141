#include "workloads/report/sweep_charts.hpp"

namespace tpusim::workloads {

SweepCharts sweep_charts(const SweepDocument& document) {
  return document.collectives() ? collective_charts(document) : training_charts(document);
}

TimeUnit time_unit_for(double largest_s) {
  if (largest_s >= 1) return {"s", 1};
  if (largest_s >= 1e-3) return {"ms", 1e3};
  if (largest_s >= 1e-6) return {"us", 1e6};
  return {"ns", 1e9};
}

}  // namespace tpusim::workloads
