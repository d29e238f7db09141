#pragma once
// sim-private: the routes between chips, kept for the most recent pairs. The alpha-beta walk
// (alpha_beta_walk.cpp) routes every transfer of every round it computes and the lower bound (bounds.cpp)
// the furthest member of each group; both would otherwise route the same chip pairs over and over.
#include "sim/chip_pair_cache.hpp"
#include "sim/routes.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

class RouteCache {
 public:
  explicit RouteCache(const topo::Topology& topology)
      : topology_(topology), cache_(topology.cores_per_chip(), topology.num_chips()) {}
  // Valid until the next call (chip_pair_cache.hpp).
  const Route& get(topo::Rank src, topo::Rank dst) {
    return cache_.get(src, dst, [this](topo::Rank from, topo::Rank to, Route& route) {
      route = route_between(topology_, from, to);
    });
  }

 private:
  const topo::Topology& topology_;
  ChipPairCache<Route> cache_;
};

}  // namespace tpusim::sim
