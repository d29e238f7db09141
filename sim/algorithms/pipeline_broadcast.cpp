// Pipelined chain broadcast: the buffer cut in `segments` pieces flows 0 -> 1 -> ... -> p-1, segment s
// leaving position i in round i+s. (p-1) + (segments-1) rounds of one segment each.
#include <algorithm>
#include <cmath>
#include <memory>

#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim::algorithms {
namespace {

Schedule pipeline(const Line& line, std::uint64_t elements, std::uint64_t segments) {
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

}  // namespace

// Segments minimising (p - 2 + s) (alpha + S / (s B)) on the inter-chip link: s = sqrt((p - 2) S / (alpha
// B)).
Schedule pipeline_broadcast(const topo::Group& group, const AlgorithmInput& input) {
  const auto& link = input.topology.inter_chip();
  const double bytes = static_cast<double>(input.request.elements) * input.request.element_bytes;
  const double best = std::sqrt(std::max(0, group.size() - 2) * bytes /
                                std::max(link.latency_s() * link.bandwidth_Bps(), 1e-30));
  const auto segments = static_cast<std::uint64_t>(std::clamp(std::round(best), 1.0, 4096.0));
  return pipeline(group.ranks, input.request.elements, segments);
}

}  // namespace tpusim::sim::algorithms
