#pragma once
// Shortest routes between chips over the links a pod has, for pods that a regular torus's dimension-order
// routing does not serve: links down (faults.hpp) and twisted wraparounds (twist.hpp). Boost.Graph's
// breadth-first search from every chip; among the hops that bring a message one chip closer, dimension 0
// first and the + way first. The table is quadratic in chips, so such pods are bounded (kMaxChipsRouted).
#include <cstdint>
#include <vector>

namespace tpusim::topo {

class Topology;

// The SimGrid platform then holds an explicit route for every pair of chips, as for meshes: a 1024-chip pod
// takes about 270 MiB and 5 s to build, a 4096-chip one would take 16 times that.
constexpr int kMaxChipsRouted = 1024;

class RouteTable {
 public:
  // Over the links of the topology that carry data (chip_graph.hpp). InputError when they leave a chip cut
  // off, or beyond kMaxChipsRouted chips (`why` says what asked for the table).
  RouteTable(const Topology& topology, const char* why);

  // The first hop of the route from chip `from` to chip `to` (from != to), as dimension * 2 + (1 for the
  // - way, 0 for the + way): neighbour_chip's code.
  int first_hop(int from, int to) const;

 private:
  int chips_;
  std::vector<std::int8_t> next_hop_;  // [to * chips + from]
};

}  // namespace tpusim::topo
