#pragma once
// The chips and inter-chip links of a topology as a Boost.Graph, and the figures derived from it.
#include <cstdint>

#include "topologies/topology.hpp"

namespace tpusim::topo {

struct GraphFigures {
  int chips = 0;
  int links = 0;             // undirected inter-chip links (each full duplex)
  int diameter_hops = 0;     // longest shortest path between chips
  double average_hops = 0;   // mean shortest path over ordered pairs of distinct chips
  int bisection_links = 0;   // links cut by the best halving plane across one dimension (on a twisted
                             // torus the best of these planes, an upper bound on its bisection)
  double bisection_Bps = 0;  // bisection_links * bandwidth * 2 directions
};

GraphFigures graph_figures(const Topology& topology);

// The links cut by the plane that halves `dimension` (coordinates below size / 2 on one side), twisted
// wraparounds included. On a regular torus 2 x chips / size, on a mesh chips / size.
int halving_cut_links(const Topology& topology, int dimension);

// Dimension-order route between chips (dimension 0 first, shorter way round; ties go the + way): the chips
// visited, source and destination included. Used for link accounting on meshes and in tests.
std::vector<int> dimension_order_route(const Topology& topology, int from_chip, int to_chip);
int hop_count(const Topology& topology, int from_chip, int to_chip);

}  // namespace tpusim::topo
