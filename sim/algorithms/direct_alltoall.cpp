// One-shot all-to-all: all p(p-1) flows start together and share the links, which is what exposes the load
// imbalance of dimension-order routing (validate's 8x8 case). Too many flows for large pods: use pairwise.
#include <fmt/format.h>

#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim::algorithms {

std::string direct_alltoall_fits(const topo::Group& group, const AlgorithmInput& input) {
  const auto divisible = alltoall_fits_divisible(group, input);
  if (!divisible.empty()) return divisible;
  if (group.size() <= 256) return "";
  return fmt::format(
      "direct alltoall starts p(p-1) flows at once and is limited to groups of at most 256 "
      "members (this group has {}); use pairwise",
      group.size());
}

Schedule direct_alltoall(const topo::Group& group, const AlgorithmInput& input) {
  const Line& line = group.ranks;
  const std::uint64_t elements = input.request.elements;
  const std::size_t p = line.size();
  if (p < 2) return {};
  const std::uint64_t chunk = elements / p;
  std::vector<Transfer> round;
  for (std::size_t i = 0; i < p; ++i) {
    for (std::size_t j = 0; j < p; ++j) {
      if (i != j) add(round, {line[i], line[j], j * chunk, i * chunk, chunk, Action::copy, true});
    }
  }
  std::vector<std::vector<Transfer>> rounds;
  rounds.push_back(std::move(round));
  return materialized(std::move(rounds));
}

}  // namespace tpusim::sim::algorithms
