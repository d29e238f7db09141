#include "topologies/chip_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::topo {
namespace {

constexpr int kMaxMeshChipsForFigures = 4096;

using ChipGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

// One full-duplex link per chip and dimension towards the + neighbour; without wraparound the last chip of a
// row has none. A torus dimension of size 2 therefore has two links between its two chips, as on SimGrid's.
ChipGraph build_graph(const Topology& topology) {
  ChipGraph graph(topology.num_chips());
  const int dims = static_cast<int>(topology.chip_dims().size());
  for (int chip = 0; chip < topology.num_chips(); ++chip) {
    for (int d = 0; d < dims; ++d) {
      if (topology.has_link(chip, d)) boost::add_edge(chip, neighbour_chip(topology, chip, 2 * d), graph);
    }
  }
  return graph;
}

}  // namespace

GraphFigures graph_figures(const Topology& topology) {
  const ChipGraph graph = build_graph(topology);
  GraphFigures figures;
  figures.chips = topology.num_chips();
  figures.links = static_cast<int>(boost::num_edges(graph));

  // A torus looks the same from every chip, so one breadth-first search gives the exact figures; a mesh
  // needs one from every chip, which is quadratic and therefore bounded.
  const int n = figures.chips;
  const int sources = topology.wraparound() ? 1 : n;
  if (sources > kMaxMeshChipsForFigures) {
    throw InputError(
        fmt::format("topology '{}': hop figures of a mesh are computed up to {} chips, it has {}",
                    topology.name(), kMaxMeshChipsForFigures, n));
  }
  std::vector<int> distance(n);
  double hop_sum = 0;
  for (int source = 0; source < sources; ++source) {
    std::fill(distance.begin(), distance.end(), 0);
    boost::breadth_first_search(graph, boost::vertex(source, graph),
                                boost::visitor(boost::make_bfs_visitor(
                                    boost::record_distances(distance.data(), boost::on_tree_edge()))));
    for (int target = 0; target < n; ++target) {
      figures.diameter_hops = std::max(figures.diameter_hops, distance[target]);
      hop_sum += distance[target];
    }
  }
  figures.average_hops = n > 1 ? hop_sum / (static_cast<double>(sources) * (n - 1)) : 0.0;

  // Bisection: the fewest links cut by a plane halving one dimension.
  int best = -1;
  for (std::size_t d = 0; d < topology.chip_dims().size(); ++d) {
    if (topology.chip_dims()[d] < 2) continue;
    const int cut = halving_cut_links(topology, static_cast<int>(d));
    if (best < 0 || cut < best) best = cut;
  }
  figures.bisection_links = std::max(best, 0);
  figures.bisection_Bps = 2.0 * figures.bisection_links * topology.inter_chip().bandwidth_Bps();
  return figures;
}

int halving_cut_links(const Topology& topology, int dimension) {
  const int half = topology.chip_dims()[dimension] / 2;
  const int dims = static_cast<int>(topology.chip_dims().size());
  auto lower = [&](int chip) { return chip_coord(topology, chip)[dimension] < half; };
  int cut = 0;
  for (int chip = 0; chip < topology.num_chips(); ++chip) {
    for (int d = 0; d < dims; ++d) {
      if (topology.has_link(chip, d) && lower(chip) != lower(neighbour_chip(topology, chip, 2 * d))) ++cut;
    }
  }
  return cut;
}

std::vector<int> dimension_order_route(const Topology& topology, int from_chip, int to_chip) {
  auto at = chip_coord(topology, from_chip);
  const auto target = chip_coord(topology, to_chip);
  const auto& dims = topology.chip_dims();
  std::vector<int> route{from_chip};
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const int k = dims[d];
    int forward = ((target[d] - at[d]) % k + k) % k;
    int step = +1, hops = forward;
    if (topology.wraparound()) {
      if (k - forward < forward) step = -1, hops = k - forward;
    } else {
      step = target[d] >= at[d] ? +1 : -1;
      hops = std::abs(target[d] - at[d]);
    }
    for (int h = 0; h < hops; ++h) {
      at[d] = ((at[d] + step) % k + k) % k;
      route.push_back(chip_id(topology, at));
    }
  }
  TPUSIM_CHECK(route.back() == to_chip);
  return route;
}

int hop_count(const Topology& topology, int from_chip, int to_chip) {
  return static_cast<int>(dimension_order_route(topology, from_chip, to_chip).size()) - 1;
}

}  // namespace tpusim::topo
