// Binomial-tree broadcast from position 0: in round s every position below 2^s that holds the data sends the
// whole buffer to the position 2^s above it. ceil(log2 p) rounds.
#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim::algorithms {

Schedule binomial_broadcast(const topo::Group& group, const AlgorithmInput& input) {
  const Line& line = group.ranks;
  const std::uint64_t elements = input.request.elements;
  const std::size_t p = line.size();
  std::vector<std::vector<Transfer>> rounds;
  for (std::size_t reach = 1; reach < p; reach <<= 1) {
    std::vector<Transfer> round;
    for (std::size_t i = 0; i < reach && i + reach < p; ++i) {
      add(round, {line[i], line[i + reach], 0, 0, elements, Action::copy});
    }
    rounds.push_back(std::move(round));
  }
  return materialized(std::move(rounds));
}

// sim/README.md, Closed forms: ceil(log2 p) rounds of the whole buffer over one hop each.
ClosedForm binomial_broadcast_closed_form(const ClosedFormInput& input) {
  if (input.kind != CollectiveKind::broadcast) return {};
  return {log2_ceil(input.members()) * (input.alpha + input.bytes / input.bandwidth),
          "ceil(log2 p)(a + S/B)"};
}

}  // namespace tpusim::sim::algorithms
