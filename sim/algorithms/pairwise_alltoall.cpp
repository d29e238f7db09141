// Pairwise exchange all-to-all: p-1 rounds, in round s every position i sends its chunk for position i+s.
// Staged rounds keep p flows in the network at a time; a one-shot exchange of p^2 flows does not finish on
// large pods.
#include <fmt/format.h>

#include <memory>

#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim::algorithms {

// Chunk j of member i must be a whole share: the layout of collective.hpp with equal chunks.
std::string alltoall_fits_divisible(const topo::Group& group, const AlgorithmInput& input) {
  if (input.request.elements % group.size() == 0) return "";
  return fmt::format(
      "alltoall needs an element count divisible by the group size: {} elements over {} members",
      input.request.elements, group.size());
}

Schedule pairwise_alltoall(const topo::Group& group, const AlgorithmInput& input) {
  const Line& line = group.ranks;
  const std::uint64_t elements = input.request.elements;
  Schedule schedule;
  const std::size_t p = line.size();
  if (p < 2) return schedule;
  auto members = std::make_shared<Line>(line);
  const std::uint64_t chunk = elements / p;
  schedule.then(p - 1, [members, p, chunk](std::size_t round, std::vector<Transfer>& out) {
    const std::size_t shift = round + 1;
    for (std::size_t i = 0; i < p; ++i) {
      const std::size_t j = (i + shift) % p;
      add(out, {(*members)[i], (*members)[j], j * chunk, i * chunk, chunk, Action::copy, true});
    }
  });
  return schedule;
}

// sim/README.md, Closed forms: p-1 rounds of one chunk each, every one a hop: (p-1)a + (p-1)/p S/B.
ClosedForm pairwise_alltoall_closed_form(const ClosedFormInput& input) {
  if (input.kind != CollectiveKind::alltoall) return {};
  const int p = input.members();
  return {(p - 1) * input.alpha + (p - 1.0) / p * input.bytes / input.bandwidth, "(p-1)a + (p-1)/p S/B"};
}

}  // namespace tpusim::sim::algorithms
