// Collective permute: every (source, destination) pair moves the whole buffer, all in one round, as XLA's
// CollectivePermute does.
#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim::algorithms {

Schedule direct_permute(const std::vector<std::pair<Rank, Rank>>& pairs, std::uint64_t elements) {
  std::vector<Transfer> round;
  for (const auto& [src, dst] : pairs) add(round, {src, dst, 0, 0, elements, Action::copy, true});
  std::vector<std::vector<Transfer>> rounds;
  if (!round.empty()) rounds.push_back(std::move(round));
  return materialized(std::move(rounds));
}

}  // namespace tpusim::sim::algorithms
