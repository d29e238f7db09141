// Bidirectional ring: the first half of every chunk goes round one way and the second half the other way, so
// both directions of every full-duplex link work and the bandwidth term halves.
#include <algorithm>

#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim::algorithms {
namespace {

struct Halves {
  std::vector<ElementRange> forward;
  std::vector<ElementRange> backward;  // in reversed line order
};

Halves halves(const std::vector<ElementRange>& owned) {
  Halves result;
  for (const auto& range : owned) {
    result.forward.push_back(balanced_part(range, 2, 0));
    result.backward.push_back(balanced_part(range, 2, 1));
  }
  std::reverse(result.backward.begin(), result.backward.end());
  return result;
}

Line reversed(const Line& line) { return Line(line.rbegin(), line.rend()); }

// Balanced chunks in position order, as the ring, when it chooses the assignment.
Schedule reduce_scatter_choosing(const Line& line, ElementRange range, std::vector<ElementRange>& owned) {
  owned = balanced_split(range, line.size());
  return bidir_ring_reduce_scatter(line, owned);
}

// sim/README.md, Closed forms: one reduce-scatter or allgather on a line of k members: (k-1) a + (k-1)/k
// S/(2B).
double bidir_ring_half_time(int k, double s, double alpha, double bandwidth) {
  if (k <= 1) return 0.0;
  const double fraction = static_cast<double>(k - 1) / k;
  return (k - 1) * alpha + fraction * s / (2 * bandwidth);
}

}  // namespace

Schedule bidir_ring_reduce_scatter(const Line& line, const std::vector<ElementRange>& owned) {
  const auto split = halves(owned);
  std::vector<Schedule> both;
  both.push_back(ring_reduce_scatter(line, split.forward));
  both.push_back(ring_reduce_scatter(reversed(line), split.backward));
  return concurrently(std::move(both));
}

Schedule bidir_ring_allgather(const Line& line, const std::vector<ElementRange>& owned) {
  const auto split = halves(owned);
  std::vector<Schedule> both;
  both.push_back(ring_allgather(line, split.forward));
  both.push_back(ring_allgather(reversed(line), split.backward));
  return concurrently(std::move(both));
}

Schedule bidir_ring_allreduce(const Line& line, ElementRange range) {
  const auto owned = balanced_split(range, line.size());
  Schedule schedule = bidir_ring_reduce_scatter(line, owned);
  schedule.then(bidir_ring_allgather(line, owned));
  return schedule;
}

const LineOperations bidir_ring_line = {reduce_scatter_choosing,   bidir_ring_allgather, bidir_ring_allreduce,
                                        bidir_ring_reduce_scatter, bidir_ring_allgather, false};

ClosedForm bidir_ring_closed_form(const ClosedFormInput& input) {
  const int p = input.members();
  const double half = bidir_ring_half_time(p, input.bytes, input.alpha, input.bandwidth);
  switch (input.kind) {
    case CollectiveKind::allreduce:
      return {p <= 1 ? 0.0 : 2 * half, "2(p-1)a + (p-1)/p S/B"};
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::allgather:
      return {half, "(p-1)a + (p-1)/p S/(2B)"};
    default:
      return {};
  }
}

}  // namespace tpusim::sim::algorithms
