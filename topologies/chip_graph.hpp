#pragma once
// The chips and inter-chip links of a topology as a Boost.Graph, and the figures derived from it.
#include <boost/graph/adjacency_list.hpp>
#include <cstdint>

#include "topologies/topology.hpp"

namespace tpusim::topo {

struct GraphFigures {
  int chips = 0;
  int links = 0;             // undirected inter-chip links (each full duplex)
  int diameter_hops = 0;     // longest shortest path between chips
  double average_hops = 0;   // mean shortest path over ordered pairs of distinct chips
  int bisection_links = 0;   // links cut by the halving plane (halving_cut_Bps) with the least bandwidth
                             // (on a twisted torus an upper bound on its bisection); links down left out
  double bisection_Bps = 0;  // their bandwidth, both directions, slow links at their factor
};

// On a multislice pod: hops within one slice, chips and links of all, the bisection the weaker of halving
// every slice and halving the pod between slices (then bisection_links counts the DCN NICs cut).
GraphFigures graph_figures(const Topology& topology);

// Whether the link from `chip` to its + neighbour along `dimension` carries data: it exists and is not down.
bool link_alive(const Topology& topology, int chip, int dimension);

// The chips and the links that carry data (link_alive): one full-duplex edge per chip and dimension towards
// the + neighbour, twisted wraparounds followed. A torus dimension of size 2 has two links between its two
// chips, as on SimGrid's.
using ChipGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
ChipGraph chip_graph(const Topology& topology);

// The bandwidth, one way, of the links cut by the weakest plane that halves `dimension` (half the coordinates
// on each side; on a faulty torus every position round it is tried): twisted wraparounds included, links down
// left out, slow links at their factor. On a healthy regular torus 2 x chips / size links, on a mesh
// chips / size.
double halving_cut_Bps(const Topology& topology, int dimension);

// Dimension-order route between chips (dimension 0 first, shorter way round; ties go the + way): the chips
// visited, source and destination included. Used for link accounting on meshes and in tests.
std::vector<int> dimension_order_route(const Topology& topology, int from_chip, int to_chip);
int hop_count(const Topology& topology, int from_chip, int to_chip);

}  // namespace tpusim::topo
