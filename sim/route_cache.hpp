#pragma once
// sim-private: the routes between chips, kept for the most recent pairs. The alpha-beta walk
// (alpha_beta_walk.cpp) routes every transfer of every round it computes and the lower bound (bounds.cpp)
// the furthest member of each group; both would otherwise route the same chip pairs over and over.
#include <vector>

#include "sim/routes.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

class RouteCache {
 public:
  explicit RouteCache(const topo::Topology& topology) : topology_(topology), slots_(1 << 16) {}
  // Valid until the next call: a cache of the most recent chip pairs, so that a million pairs asked for once
  // each (recursive doubling over 65,536 chips) do not all stay in memory.
  const Route& get(topo::Rank src, topo::Rank dst) {
    const int cores = topology_.cores_per_chip();
    const int from = src / cores, to = dst / cores;
    const long long key = static_cast<long long>(from) * topology_.num_chips() + to;
    Slot& slot = slots_[static_cast<std::size_t>(key) % slots_.size()];
    // Every pair of distinct cores on the same two chips takes the same links.
    if (slot.key != key) {
      slot.route = route_between(topology_, src, dst);
      slot.key = key;
    }
    return slot.route;
  }

 private:
  struct Slot {
    long long key = -1;
    Route route;
  };
  const topo::Topology& topology_;
  std::vector<Slot> slots_;
};

}  // namespace tpusim::sim
