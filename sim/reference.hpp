#pragma once
// The expected result of a collective computed directly (no schedule, no simulation), to check the data the
// simulated messages moved. Sums are accumulated in double.
#include <map>
#include <vector>

#include "sim/collective.hpp"

namespace tpusim::sim {

// `inputs` holds every member's buffer before the collective. Returns every member's expected buffer; for
// reduce-scatter it holds the full reduction, of which only the member's own chunk is meaningful (see
// compare_with_reference).
Buffers reference_result(const CollectiveRequest& request, const Buffers& inputs);

struct DataCheck {
  double max_abs_error = 0;
  double max_reference_magnitude = 0;
  std::size_t compared = 0;
};
// Compares the meaningful elements of `actual` with `expected` (reduce-scatter: each member's own chunk).
DataCheck compare_with_reference(const CollectiveRequest& request, const Buffers& expected,
                                 const Buffers& actual);

// Deterministic pseudo-random inputs in [-1, 1) for every member rank.
Buffers random_inputs(const CollectiveRequest& request, unsigned seed);

}  // namespace tpusim::sim
