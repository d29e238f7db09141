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

}  // namespace tpusim::sim::algorithms
