#pragma once
// sim-private: the SimGrid platform of a topology. One host per chip (host i is chip i, dimension 0 fastest);
// the cores of a chip share its host and talk over its loopback link (intra_chip parameters, FATPIPE: the
// on-chip network is taken as a crossbar, every core-to-core flow gets the full intra-chip bandwidth).
// Inter-chip links are SPLITDUPLEX (each direction has the full bandwidth). Tori use SimGrid's torus zone;
// meshes and lines a full zone with explicit dimension-order routes.
#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/chip_pair_cache.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

class Platform {
 public:
  // Needs the engine to exist and the network model to be configured; builds and seals the zones.
  explicit Platform(const topo::Topology& topology);

  simgrid::s4u::Host* host_of_rank(topo::Rank rank) const { return hosts_[rank / cores_per_chip_]; }
  simgrid::s4u::Host* host(int chip) const { return hosts_[chip]; }

  // Indices into links() of the links a message from one core to another crosses, valid until the next call
  // (chip_pair_cache.hpp).
  const std::vector<int>& route(topo::Rank src, topo::Rank dst);
  struct LinkInfo {
    std::string name;
    double bandwidth_Bps;
  };
  const std::vector<LinkInfo>& links() const { return links_; }

 private:
  int link_index(simgrid::s4u::Link* link);
  // The torus zone's route computed as sim/routes.cpp does (tests/sim/engine check it against SimGrid's),
  // without asking SimGrid: asking took 9% of a recursive doubling over 16,384 chips, whose chip pairs are
  // nearly all routed once each, and communicate() routes them again anyway.
  void torus_route(int from_chip, int to_chip, std::vector<int>& links);
  void number_torus_links();

  const topo::Topology* topology_;  // outlives the platform: the simulator holds both
  bool torus_zone_ = false;

  int cores_per_chip_;
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<LinkInfo> links_;
  ChipPairCache<std::vector<int>> routes_;
  std::vector<simgrid::s4u::Link*> route_links_;  // route()'s scratch, kept to save an allocation a call
  std::vector<simgrid::s4u::Link*> link_of_directed_;  // by sim/routes.hpp number (torus zone)
  std::vector<int> index_of_directed_;  // links() index plus one by sim/routes.hpp number; 0: not met yet
  std::vector<int> directed_;           // torus_route()'s scratch
};

}  // namespace tpusim::sim
