#pragma once
// Routes as the SimGrid platform takes them, computed without SimGrid (bounds, predictions and tests use
// them). Tori follow SimGrid's torus zone: dimension order, dimension 0 first, shorter way round, and its own
// rule for ties at exactly k/2 hops, which is position dependent (on k = 8: 0->4 goes +, 4->0 goes -, 1->5
// and 5->1 both go +). Meshes use topologies' dimension_order_route. Cores of one chip talk over the chip's
// loopback. With links down (topologies/faults.hpp) or twisted wraparounds (topologies/twist.hpp) a pod
// routes over the shortest paths of its route table (topologies/route_table.hpp), and a slow link slows every
// route through it.
#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace tpusim::sim {

// Directed links are numbered: the full-duplex link from a chip to its + neighbour along dimension d is
// ((chip * dims + d) * 2 + 0) in the + direction ("UP") and +1 in the - direction ("DOWN"), so link / 2 is
// the faults' number of the full-duplex link; the loopback of chip c is 2 * chips * dims + c. On a multislice
// pod (topologies/multislice.hpp) chip c's DCN NIC follows: 2 * chips * dims + chips + 2c from the chip to
// the fabric (UP), + 1 from the fabric to the chip (DOWN).
int dcn_link(const topo::Topology& topology, int chip, bool up);
bool is_dcn_link(const topo::Topology& topology, int link);
int directed_link_count(const topo::Topology& topology);
std::string directed_link_name(const topo::Topology& topology, int link);  // the SimGrid link name
bool is_loopback(const topo::Topology& topology, int link);

struct Route {
  std::vector<int> links;
  double latency_s = 0;
  double bandwidth_Bps = 0;  // the slowest link's
  int hops = 0;              // inter-chip hops over ICI (0 between slices: the route is two DCN links)
};

Route route_between(const topo::Topology& topology, topo::Rank src, topo::Rank dst);
// The + or - choice of SimGrid's torus zone along one dimension of size k, from coordinate m to t != m.
bool torus_goes_up(int m, int t, int k);

}  // namespace tpusim::sim
