// Pairwise exchange all-to-all: p-1 rounds, in round s every position i sends its chunk for position i+s.
// Staged rounds keep p flows in the network at a time; a one-shot exchange of p^2 flows does not finish on
// large pods.
#include <memory>

#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim::algorithms {

Schedule pairwise_alltoall(const Line& line, std::uint64_t elements) {
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

}  // namespace tpusim::sim::algorithms
