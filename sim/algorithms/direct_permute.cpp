// Collective permute: every (source, destination) pair moves the whole buffer, all in one round, as XLA's
// CollectivePermute does.
#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim::algorithms {

Schedule direct_permute(const topo::Group&, const AlgorithmInput& input) {
  std::vector<Transfer> round;
  for (const auto& [src, dst] : input.request.permutation) {
    add(round, {src, dst, 0, 0, input.request.elements, Action::copy, true});
  }
  std::vector<std::vector<Transfer>> rounds;
  if (!round.empty()) rounds.push_back(std::move(round));
  return materialized(std::move(rounds));
}

// One round, every pair one hop: a + S/B.
ClosedForm direct_permute_closed_form(const ClosedFormInput& input) {
  if (input.kind != CollectiveKind::permute) return {};
  return {input.alpha + input.bytes / input.bandwidth, "a + S/B"};
}

}  // namespace tpusim::sim::algorithms
