#include "topologies/chip_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::topo {
namespace {

constexpr int kMaxMeshChipsForFigures = 4096;

struct Cut {
  int links = 0;
  double bandwidth_Bps = 0;  // one way, slow links at their factor
};

// The plane that puts coordinates offset .. offset + size / 2 - 1 (round the torus) along `dimension` on one
// side.
Cut halving_cut(const Topology& topology, int dimension, int offset) {
  const int size = topology.chip_dims()[dimension], half = size / 2;
  const int dims = static_cast<int>(topology.chip_dims().size());
  auto lower = [&](int chip) {
    return (chip_coord(topology, chip)[dimension] - offset + size) % size < half;
  };
  Cut cut;
  for (int chip = 0; chip < topology.num_chips(); ++chip) {
    for (int d = 0; d < dims; ++d) {
      if (!link_alive(topology, chip, d) || lower(chip) == lower(neighbour_chip(topology, chip, 2 * d)))
        continue;
      ++cut.links;
      cut.bandwidth_Bps +=
          topology.inter_chip().bandwidth_Bps() * topology.faults().bandwidth_factor(chip * dims + d);
    }
  }
  return cut;
}

// The halving plane across `dimension` with the least bandwidth. A healthy torus, twisted or not, looks the
// same from every position along it; with faults every position round the torus is a plane of its own.
Cut weakest_halving_cut(const Topology& topology, int dimension) {
  const bool every_offset = topology.wraparound() && !topology.faults().empty();
  Cut weakest = halving_cut(topology, dimension, 0);
  for (int offset = 1; every_offset && offset < topology.chip_dims()[dimension]; ++offset) {
    const Cut cut = halving_cut(topology, dimension, offset);
    if (cut.bandwidth_Bps < weakest.bandwidth_Bps) weakest = cut;
  }
  return weakest;
}

}  // namespace

bool link_alive(const Topology& topology, int chip, int dimension) {
  const int dims = static_cast<int>(topology.chip_dims().size());
  return topology.has_link(chip, dimension) && !topology.faults().is_down(chip * dims + dimension);
}

ChipGraph chip_graph(const Topology& topology) {
  ChipGraph graph(topology.num_chips());
  const int dims = static_cast<int>(topology.chip_dims().size());
  for (int chip = 0; chip < topology.num_chips(); ++chip) {
    for (int d = 0; d < dims; ++d) {
      if (link_alive(topology, chip, d)) boost::add_edge(chip, neighbour_chip(topology, chip, 2 * d), graph);
    }
  }
  return graph;
}

GraphFigures graph_figures(const Topology& topology) {
  if (topology.multislice()) {
    // Hops are counted over ICI, within one slice (between slices a route is the DCN: no hops); the pod's
    // chips and links are its slices'. Its bisection is the weaker of cutting every slice in half and cutting
    // the pod between its slices, through the DCN NICs of half its chips.
    GraphFigures figures = graph_figures(topology.one_slice());
    const int slices = topology.slices();
    figures.chips *= slices;
    figures.links *= slices;
    figures.bisection_links *= slices;
    figures.bisection_Bps *= slices;
    const double dcn_cut_Bps = 2.0 * (topology.num_chips() / 2) * topology.dcn().bandwidth_Bps();
    if (figures.bisection_links == 0 || dcn_cut_Bps < figures.bisection_Bps) {
      figures.bisection_links = topology.num_chips() / 2;
      figures.bisection_Bps = dcn_cut_Bps;
    }
    return figures;
  }
  const ChipGraph graph = chip_graph(topology);
  GraphFigures figures;
  figures.chips = topology.num_chips();
  figures.links = static_cast<int>(boost::num_edges(graph));

  // A torus, twisted or not, looks the same from every chip, so one breadth-first search gives the exact
  // figures; a mesh or a pod with links down needs one from every chip, which is quadratic and so bounded.
  const int n = figures.chips;
  const int sources = topology.wraparound() && !topology.faults().any_down() ? 1 : n;
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
  bool any = false;
  for (std::size_t d = 0; d < topology.chip_dims().size(); ++d) {
    if (topology.chip_dims()[d] < 2) continue;
    const Cut cut = weakest_halving_cut(topology, static_cast<int>(d));
    if (any && cut.bandwidth_Bps >= figures.bisection_Bps / 2) continue;
    any = true;
    figures.bisection_links = cut.links;
    figures.bisection_Bps = 2.0 * cut.bandwidth_Bps;
  }
  return figures;
}

double halving_cut_Bps(const Topology& topology, int dimension) {
  return weakest_halving_cut(topology, dimension).bandwidth_Bps;
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
