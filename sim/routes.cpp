#include "sim/routes.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/chip_graph.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::sim {
namespace {

int dims_of(const topo::Topology& topology) { return static_cast<int>(topology.chip_dims().size()); }

int inter_link(const topo::Topology& topology, int owner_chip, int dimension, bool up) {
  return (owner_chip * dims_of(topology) + dimension) * 2 + (up ? 0 : 1);
}

}  // namespace

int directed_link_count(const topo::Topology& topology) {
  return 2 * topology.num_chips() * dims_of(topology) + topology.num_chips() +
         (topology.multislice() ? 2 * topology.num_chips() : 0);
}

bool is_loopback(const topo::Topology& topology, int link) {
  const int first = 2 * topology.num_chips() * dims_of(topology);
  return link >= first && link < first + topology.num_chips();
}

int dcn_link(const topo::Topology& topology, int chip, bool up) {
  TPUSIM_CHECK(topology.multislice());
  return 2 * topology.num_chips() * dims_of(topology) + topology.num_chips() + 2 * chip + (up ? 0 : 1);
}

bool is_dcn_link(const topo::Topology& topology, int link) {
  return topology.multislice() && link >= dcn_link(topology, 0, true);
}

std::string directed_link_name(const topo::Topology& topology, int link) {
  const int dims = dims_of(topology);
  if (is_dcn_link(topology, link)) {
    const int offset = link - dcn_link(topology, 0, true);
    return fmt::format("dcn_nic-{}_{}", offset / 2, offset % 2 == 0 ? "UP" : "DOWN");
  }
  if (is_loopback(topology, link)) return fmt::format("loopback-{}", link - 2 * topology.num_chips() * dims);
  const int owner = link / 2 / dims;
  const int dimension = link / 2 % dims;
  const char* prefix = topology.wraparound() ? "torus_link" : "mesh_link";
  return fmt::format("{}_from_{}_to_{}_{}", prefix, owner,
                     topo::neighbour_chip(topology, owner, 2 * dimension), link % 2 == 0 ? "UP" : "DOWN");
}

// SimGrid 3.32 TorusZone::get_local_route: "right" when the target is at most k/2 ahead without wrapping, or
// when going round through k-1 -> 0 reaches it within k/2.
bool torus_goes_up(int m, int t, int k) {
  return (t > m && t <= m + k / 2) || (m > k / 2 && (m + k / 2) % k >= t);
}

Route route_between(const topo::Topology& topology, topo::Rank src, topo::Rank dst) {
  Route route;
  const int from = topo::chip_of(topology, src);
  const int to = topo::chip_of(topology, dst);
  const auto& inter = topology.inter_chip();
  if (from == to) {
    if (src != dst) {
      route.links.push_back(2 * topology.num_chips() * dims_of(topology) + from);
      route.latency_s = topology.intra_chip().latency_s();
      route.bandwidth_Bps = topology.intra_chip().bandwidth_Bps();
    }
    return route;
  }
  if (topology.multislice() && topology.slice_of_chip(from) != topology.slice_of_chip(to)) {
    // Between slices: out of the source chip's DCN NIC, across the non-blocking fabric, into the
    // destination's (multislice.hpp); the latency is the DCN's from NIC to NIC.
    route.links = {dcn_link(topology, from, true), dcn_link(topology, to, false)};
    route.latency_s = topology.dcn().latency_s();
    route.bandwidth_Bps = topology.dcn().bandwidth_Bps();
    return route;
  }
  const auto& faults = topology.faults();
  if (const auto* table = topology.route_table()) {
    // Around links that are down, or over twisted wraparounds: shortest paths, hop by hop.
    for (int at = from; at != to;) {
      const int hop = table->first_hop(at, to);
      const int next = topo::neighbour_chip(topology, at, hop);
      const bool up = hop % 2 == 0;
      route.links.push_back(inter_link(topology, up ? at : next, hop / 2, up));
      at = next;
    }
  } else if (topology.wraparound()) {
    // Chip ids count dimension 0 fastest (rank_mapping.hpp): a coordinate is the id over its stride, modulo
    // its size, so a hop moves the id by the stride (no coordinate vectors: every transfer of the alpha-beta
    // walk is routed).
    int at = from, stride = 1;
    for (int d = 0; d < dims_of(topology); ++d) {
      const int k = topology.chip_dims()[d];
      int m = at / stride % k;
      const int t = to / stride % k;
      while (m != t) {
        const bool up = torus_goes_up(m, t, k);
        const int next = up ? (m + 1) % k : (m - 1 + k) % k;
        if (up) route.links.push_back(inter_link(topology, at, d, true));
        at += (next - m) * stride;
        m = next;
        if (!up) route.links.push_back(inter_link(topology, at, d, false));
      }
      stride *= k;
    }
  } else {
    const auto chips = topo::dimension_order_route(topology, from, to);
    for (std::size_t h = 0; h + 1 < chips.size(); ++h) {
      const auto a = topo::chip_coord(topology, chips[h]);
      const auto b = topo::chip_coord(topology, chips[h + 1]);
      int d = 0;
      while (a[d] == b[d]) ++d;
      route.links.push_back(b[d] > a[d] ? inter_link(topology, chips[h], d, true)
                                        : inter_link(topology, chips[h + 1], d, false));
    }
  }
  route.hops = static_cast<int>(route.links.size());
  route.latency_s = route.hops * inter.latency_s();
  double slowest = 1.0;
  for (const int link : route.links) slowest = std::min(slowest, faults.bandwidth_factor(link / 2));
  route.bandwidth_Bps = inter.bandwidth_Bps() * slowest;
  return route;
}

}  // namespace tpusim::sim
