// Pipelined chain broadcast: the buffer cut in `segments` pieces flows 0 -> 1 -> ... -> p-1, segment s
// leaving position i in round i+s. (p-1) + (segments-1) rounds of one segment each.
#include <algorithm>
#include <memory>

#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim::algorithms {

Schedule pipeline_broadcast(const Line& line, std::uint64_t elements, std::uint64_t segments) {
  Schedule schedule;
  const std::size_t p = line.size();
  segments =
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(segments, std::max<std::uint64_t>(elements, 1)));
  if (p < 2) return schedule;
  auto members = std::make_shared<Line>(line);
  const ElementRange whole{0, elements};
  schedule.then(
      p - 1 + segments - 1, [members, p, segments, whole](std::size_t round, std::vector<Transfer>& out) {
        for (std::size_t i = 0; i + 1 < p; ++i) {
          if (round < i || round - i >= segments) continue;
          const ElementRange piece = balanced_part(whole, segments, round - i);
          add(out, {(*members)[i], (*members)[i + 1], piece.offset, piece.offset, piece.count, Action::copy});
        }
      });
  return schedule;
}

}  // namespace tpusim::sim::algorithms
