#include "topologies/simulation_memory.hpp"

#include <fmt/format.h>

#include <cmath>

#include "topologies/support/input_error.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::topo {

double estimated_simulation_bytes(const Topology& topology) {
  return topology.num_chips() * kSimulationBytesPerChip +
         double(topology.num_cores()) * kSimulationBytesPerCore;
}

void require_simulation_fits(const Topology& topology) {
  const double bytes = estimated_simulation_bytes(topology);
  if (bytes <= kMaxSimulationBytes) return;
  const double most_cores = std::floor(
      (kMaxSimulationBytes - topology.num_chips() * kSimulationBytesPerChip) / kSimulationBytesPerCore);
  throw InputError(
      fmt::format("topology '{}' has {} cores on {} chips; simulating it would need about {} of memory ({} "
                  "per chip and {} "
                  "per core), more than the {} tpusim allows: use at most about {} cores",
                  topology.name(), topology.num_cores(), topology.num_chips(), format_bytes(bytes),
                  format_bytes(kSimulationBytesPerChip), format_bytes(kSimulationBytesPerCore),
                  format_bytes(kMaxSimulationBytes), static_cast<long long>(most_cores)));
}

}  // namespace tpusim::topo
