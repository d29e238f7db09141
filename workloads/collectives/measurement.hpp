#pragma once
// One collective simulated and set against its analytical figures: what `tpusim collective` prints and
// `tpusim validate` checks.
#include <vector>

#include "sim/bounds.hpp"
#include "sim/reference.hpp"
#include "sim/simulator.hpp"
#include "workloads/collectives/request_builder.hpp"

namespace tpusim::workloads {

struct Measurement {
  sim::CollectiveResult result;
  sim::AlphaBetaPrediction prediction;
  sim::LowerBound bound;
  std::vector<sim::LinkLoad> links;  // bytes carried during this collective only, busiest first
  bool data_checked = false;
  sim::DataCheck data;
  double data_tolerance = 0;  // max abs error allowed: exact for max and pure copies, rounding for sums
  bool data_ok = true;
};

// Largest memory --check-data may use (inputs, results, the reference and, for all-to-all and permute, the
// executor's copy of the inputs; all fp32).
constexpr double kMaxCheckedDataBytes = 4.0 * (1u << 30);

// a / b for the ratios the reports print (simulated / prediction, simulated / bound, utilisation); 0 when b
// is not positive (a bound or prediction that is zero, a collective that took no time).
inline double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

// Simulates `built` on the simulator; with check_data, random inputs travel and the result is compared with
// reference_result (InputError if the buffers would exceed kMaxCheckedDataBytes).
Measurement measure(sim::Simulator& simulator, const BuiltRequest& built, bool check_data);

}  // namespace tpusim::workloads
