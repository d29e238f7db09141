#pragma once
// sim-private: the routes between chips, computed once per pair. The alpha-beta walk (alpha_beta_walk.cpp)
// routes every transfer of every round it computes and the lower bound (bounds.cpp) the furthest member of
// each group; both would otherwise route the same chip pairs over and over.
#include <unordered_map>

#include "sim/routes.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

class RouteCache {
 public:
  explicit RouteCache(const topo::Topology& topology) : topology_(topology) {}
  const Route& get(topo::Rank src, topo::Rank dst) {
    const int cores = topology_.cores_per_chip();
    const int from = src / cores, to = dst / cores;
    const long long key = static_cast<long long>(from) * topology_.num_chips() + to;
    auto found = cache_.find(key);
    // Every pair of distinct cores on the same two chips takes the same links.
    if (found == cache_.end()) found = cache_.emplace(key, route_between(topology_, src, dst)).first;
    return found->second;
  }

 private:
  const topo::Topology& topology_;
  std::unordered_map<long long, Route> cache_;
};

}  // namespace tpusim::sim
