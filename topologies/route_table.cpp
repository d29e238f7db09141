#include "topologies/route_table.hpp"

#include <fmt/format.h>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include "topologies/chip_graph.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/topology.hpp"

namespace tpusim::topo {

RouteTable::RouteTable(const Topology& topology, const char* why) : chips_(topology.num_chips()) {
  if (chips_ > kMaxChipsRouted) {
    throw InputError(fmt::format("{} are simulated on pods of up to {} chips; this one has {}", why,
                                 kMaxChipsRouted, chips_));
  }
  const int dims = static_cast<int>(topology.chip_dims().size());
  const ChipGraph graph = chip_graph(topology);
  constexpr int kUnreached = -1;
  next_hop_.assign(static_cast<std::size_t>(chips_) * chips_, -1);
  std::vector<int> distance(chips_);
  for (int to = 0; to < chips_; ++to) {
    std::fill(distance.begin(), distance.end(), kUnreached);
    distance[to] = 0;
    boost::breadth_first_search(graph, boost::vertex(to, graph),
                                boost::visitor(boost::make_bfs_visitor(
                                    boost::record_distances(distance.data(), boost::on_tree_edge()))));
    for (int from = 0; from < chips_; ++from) {
      if (distance[from] == kUnreached) {
        throw InputError(fmt::format("faults cut chip {} off from chip {}; a pod must stay connected",
                                     chip_name(topology, from), chip_name(topology, to)));
      }
      if (from == to) continue;
      auto& entry = next_hop_[static_cast<std::size_t>(to) * chips_ + from];
      for (int hop = 0; hop < 2 * dims; ++hop) {
        const int next = neighbour_chip(topology, from, hop);
        if (next < 0 || !link_alive(topology, hop % 2 == 0 ? from : next, hop / 2) ||
            distance[next] != distance[from] - 1)
          continue;
        entry = static_cast<std::int8_t>(hop);
        break;
      }
      TPUSIM_CHECK(entry >= 0);
    }
  }
}

int RouteTable::first_hop(int from, int to) const {
  TPUSIM_CHECK(from != to && from >= 0 && to >= 0 && from < chips_ && to < chips_);
  return next_hop_[static_cast<std::size_t>(to) * chips_ + from];
}

}  // namespace tpusim::topo
