#pragma once
// sim-private: the SimGrid platform of a multislice pod (topologies/multislice.hpp). Its routes are computed
// when SimGrid asks for them (routes.hpp's route_between) rather than stored for every chip pair, as a full
// zone would (kMaxMeshChips in simulator.cpp): eight 256-chip slices are 4 million pairs. One zone holds
// every chip; ICI links are split-duplex links as on the slice alone, each chip has a loopback when it has
// several cores, and a split-duplex DCN NIC (UP to the fabric, DOWN from it) of the DCN's bandwidth. The
// fabric is non-blocking: no link of its own, the NIC to NIC latency on the route.
#include <simgrid/s4u.hpp>
#include <vector>

#include "topologies/topology.hpp"

namespace tpusim::sim {

// Creates the zone (the engine's root) and one host per chip (host i is chip i), seals it.
void build_multislice_zone(const topo::Topology& topology, std::vector<simgrid::s4u::Host*>& hosts);

}  // namespace tpusim::sim
