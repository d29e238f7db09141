#include "sim/bounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "sim/algorithm_registry.hpp"
#include "sim/alpha_beta_walk.hpp"
#include "sim/request_check.hpp"
#include "sim/route_cache.hpp"
#include "sim/routes.hpp"
#include "topologies/chip_graph.hpp"
#include "topologies/rank_mapping.hpp"

namespace tpusim::sim {
namespace {

using algorithms::log2_ceil;

// Bytes that must move from chip to chip, over all groups, and the chips whose out-links must send them:
// the counting argument of sim/README.md, Lower bounds, with each chip as one node (its cores combine and
// share data on the chip for free). Per element, combining q chips' partial values takes q-1 chip-to-chip
// messages and bringing the result back to every chip q-1 more (one-way gossip needs 2(q-1) messages), so an
// allreduce moves 2(q-1)S between chips, a reduce-scatter or allgather (q-1)S, a broadcast (q-1)S, an
// all-to-all each member's pieces bound for other chips, a permute each pair that crosses chips.
struct ChipTraffic {
  double bytes = 0;
  int sending_chips = 0;
};

// What must leave the nodes (chips, or slices) holding a group of p members, `members_per_node` of them on
// each, for a collective of s bytes per member to complete (not a permute, which counts its pairs).
double crossing_bytes(CollectiveKind kind, const std::unordered_map<int, int>& members_per_node, double p,
                      double s) {
  const double q = static_cast<double>(members_per_node.size());
  switch (kind) {
    case CollectiveKind::allreduce:
      return 2 * (q - 1) * s;
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::allgather:
    case CollectiveKind::broadcast:
      return (q - 1) * s;
    case CollectiveKind::alltoall: {
      double bytes = 0;
      for (const auto& [node, members] : members_per_node) bytes += members * (p - members) * s / p;
      return bytes;
    }
    case CollectiveKind::permute:
      break;
  }
  return 0;
}

ChipTraffic chip_traffic(const topo::Topology& topology, const CollectiveRequest& request, double s) {
  const int cores = topology.cores_per_chip();
  std::vector<std::uint8_t> sends(topology.num_chips(), 0);
  ChipTraffic traffic;
  if (request.kind == CollectiveKind::permute) {
    for (const auto& [src, dst] : request.permutation) {
      if (src / cores == dst / cores) continue;
      sends[src / cores] = 1;
      traffic.bytes += s;
    }
  } else {
    std::unordered_map<int, int> members_on_chip;
    for (const auto& group : request.groups) {
      members_on_chip.clear();
      for (const topo::Rank rank : group.ranks) ++members_on_chip[rank / cores];
      const double q = static_cast<double>(members_on_chip.size()), p = group.size();
      if (q < 2) continue;
      for (const auto& [chip, members] : members_on_chip) sends[chip] = 1;
      traffic.bytes += crossing_bytes(request.kind, members_on_chip, p, s);
    }
  }
  traffic.sending_chips = static_cast<int>(std::count(sends.begin(), sends.end(), 1));
  return traffic;
}

// The same counting argument with each slice of a multislice pod as one node: what must cross the DCN, and
// the chips of the groups that span slices, whose NICs are the only way across (topologies/multislice.hpp).
ChipTraffic slice_traffic(const topo::Topology& topology, const CollectiveRequest& request, double s) {
  ChipTraffic traffic;
  if (!topology.multislice()) return traffic;
  const int cores = topology.cores_per_chip();
  const auto slice_of = [&](topo::Rank rank) { return topology.slice_of_chip(rank / cores); };
  std::vector<std::uint8_t> sends(topology.num_chips(), 0);
  if (request.kind == CollectiveKind::permute) {
    for (const auto& [src, dst] : request.permutation) {
      if (slice_of(src) == slice_of(dst)) continue;
      sends[src / cores] = 1;
      traffic.bytes += s;
    }
  } else {
    std::unordered_map<int, int> members_in_slice;
    for (const auto& group : request.groups) {
      members_in_slice.clear();
      for (const topo::Rank rank : group.ranks) ++members_in_slice[slice_of(rank)];
      const double q = static_cast<double>(members_in_slice.size()), p = group.size();
      if (q < 2) continue;
      for (const topo::Rank rank : group.ranks) sends[rank / cores] = 1;
      traffic.bytes += crossing_bytes(request.kind, members_in_slice, p, s);
    }
  }
  traffic.sending_chips = static_cast<int>(std::count(sends.begin(), sends.end(), 1));
  return traffic;
}

// What a chip's DCN NIC adds to what it can send (nothing on a single slice).
double dcn_Bps_per_chip(const topo::Topology& topology) {
  return topology.multislice() ? topology.dcn().bandwidth_Bps() : 0.0;
}

int inter_chip_links_per_chip(const topo::Topology& topology) {
  int out_links = 0;
  for (const int size : topology.chip_dims()) {
    if (size > 1) out_links += 2;
  }
  return out_links;
}

// The busiest directed link in bytes and in time: what explains a routing's penalty (bounds.hpp).
void add_alpha_beta_busiest_link(const topo::Topology& topology, const std::vector<double>& link_bytes,
                                 AlphaBetaPrediction& prediction) {
  for (std::size_t link = 0; link < link_bytes.size(); ++link) {
    if (link_bytes[link] > prediction.max_link_bytes) prediction.max_link_bytes = link_bytes[link];
  }
  prediction.max_link_time_s = prediction.max_link_bytes / topology.inter_chip().bandwidth_Bps();
  if (topology.multislice()) {
    // DCN NICs are slower than ICI links: the busiest link in time may be one of them.
    double ici_bytes = 0, dcn_bytes = 0;
    for (std::size_t link = 0; link < link_bytes.size(); ++link) {
      double& most = is_dcn_link(topology, static_cast<int>(link)) ? dcn_bytes : ici_bytes;
      most = std::max(most, link_bytes[link]);
    }
    prediction.max_link_time_s = std::max(ici_bytes / topology.inter_chip().bandwidth_Bps(),
                                          dcn_bytes / topology.dcn().bandwidth_Bps());
  }
}

// Whether no directed link carried two transfers at overlapping times (up to rounding relative to the
// critical path time_s): then the alpha-beta time is the ideal network's exactly.
bool alpha_beta_links_never_overlap(std::vector<std::vector<LinkInterval>> busy, double time_s) {
  const double slack = 1e-12 * std::max(time_s, 1e-30);
  for (auto& intervals : busy) {  // the first link found shared settles it: the others need no sort
    std::sort(intervals.begin(), intervals.end(),
              [](const LinkInterval& a, const LinkInterval& b) { return a.start < b.start; });
    double reach = -1;
    for (const auto& interval : intervals) {
      if (interval.start < reach - slack) return false;
      reach = std::max(reach, interval.end);
    }
  }
  return true;
}

// The closed form of a uniform schedule, for its links' latency and bandwidth, and whether the element count
// splits as evenly as the formula assumes.
void add_alpha_beta_closed_form(const topo::Topology& topology, const CollectiveRequest& request,
                                double latency_s, double bandwidth_Bps, AlphaBetaPrediction& prediction) {
  if (latency_s < 0) {  // every transfer crossed slices
    latency_s = topology.inter_chip().latency_s();
    bandwidth_Bps = topology.inter_chip().bandwidth_Bps();
  }
  const auto form = closed_form(topology, request, latency_s, bandwidth_Bps);
  prediction.closed_form_s = form.time_s;
  prediction.closed_form = form.formula;
  const std::uint64_t multiple =
      form.exact_multiple > 0 ? form.exact_multiple : 2 * static_cast<std::uint64_t>(largest_group(request));
  prediction.closed_form_exact = form.time_s >= 0 && request.elements % multiple == 0;
}

}  // namespace

double injection_bandwidth_Bps(const topo::Topology& topology) {
  const double on_pod = (topology.cores_per_chip() - 1) * topology.intra_chip().bandwidth_Bps() +
                        inter_chip_links_per_chip(topology) * topology.inter_chip().bandwidth_Bps();
  return topology.multislice() ? on_pod + dcn_Bps_per_chip(topology) : on_pod;
}

// The walk over the schedule's rounds (alpha_beta_walk.hpp), then what it sums up.
AlphaBetaPrediction predict_alpha_beta(const topo::Topology& topology, const CollectiveRequest& request,
                                       bool fold, double give_up_after_s) {
  validate_request(topology, request);
  const Schedule schedule = build_schedule(topology, request);
  AlphaBetaWalk walk(topology, request, schedule, fold, give_up_after_s);
  walk.run();
  AlphaBetaPrediction prediction;
  prediction.time_s = walk.time_s();
  prediction.transfers = walk.transfers();
  prediction.folded_rounds = walk.folded_rounds();
  if (prediction.time_s > give_up_after_s) {
    prediction.gave_up = true;
    return prediction;
  }
  add_alpha_beta_busiest_link(topology, walk.link_bytes(), prediction);
  prediction.contention_checked = walk.contention_checked();
  if (prediction.contention_checked)
    prediction.contention_free = alpha_beta_links_never_overlap(walk.take_busy(), prediction.time_s);
  prediction.uniform = walk.uniform() && prediction.transfers > 0;
  if (prediction.uniform) {
    add_alpha_beta_closed_form(topology, request, walk.uniform_latency_s(), walk.uniform_bandwidth_Bps(),
                               prediction);
  }
  return prediction;
}

LowerBound lower_bound(const topo::Topology& topology, const CollectiveRequest& request) {
  LowerBound bound;
  const int p = largest_group(request);
  const double s = static_cast<double>(request.elements) * request.element_bytes;
  if (p < 2 || s <= 0) return bound;
  const double injection = injection_bandwidth_Bps(topology);
  double alpha_min = topology.inter_chip().latency_s();
  if (topology.cores_per_chip() > 1) alpha_min = std::min(alpha_min, topology.intra_chip().latency_s());
  const double fraction = static_cast<double>(p - 1) / p;
  RouteCache routes(topology);
  auto furthest = [&routes](topo::Rank from, const std::vector<topo::Rank>& to) {
    double latency = 0;
    for (const topo::Rank rank : to) {
      if (rank != from) latency = std::max(latency, routes.get(from, rank).latency_s);
    }
    return latency;
  };
  switch (request.kind) {
    case CollectiveKind::allreduce:
      bound.core_injection_s = 2 * fraction * s / injection;
      bound.latency_s = log2_ceil(p) * alpha_min;
      break;
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::allgather:
      bound.core_injection_s = fraction * s / injection;
      bound.latency_s = log2_ceil(p) * alpha_min;
      break;
    case CollectiveKind::alltoall: {
      bound.core_injection_s = fraction * s / injection;
      bound.latency_s = alpha_min;
      const auto& group = request.groups.front();
      if (request.groups.size() == 1 && group.size() == topology.num_cores()) {
        const double pair_bytes = s / p;
        const auto& dims = topology.chip_dims();
        for (std::size_t d = 0; d < dims.size(); ++d) {
          const int k = dims[d];
          if (k < 2) continue;
          const double n1 = static_cast<double>(p) * (k / 2) / k, n2 = p - n1;
          const double cut_Bps = 2 * topo::halving_cut_Bps(topology, static_cast<int>(d));
          if (cut_Bps <= 0) continue;  // never on a connected pod; faults that cut one in two are refused
          bound.bisection_s = std::max(bound.bisection_s, 2 * n1 * n2 * pair_bytes / cut_Bps);
        }
      }
      break;
    }
    case CollectiveKind::broadcast:
      bound.core_injection_s = s / injection;
      for (const auto& group : request.groups)
        bound.latency_s = std::max(bound.latency_s, furthest(group.ranks.front(), group.ranks));
      break;
    case CollectiveKind::permute:
      bound.core_injection_s = s / injection;
      for (const auto& [src, dst] : request.permutation)
        bound.latency_s = std::max(bound.latency_s, furthest(src, {dst}));
      break;
  }
  const ChipTraffic traffic = chip_traffic(topology, request, s);
  const int links = inter_chip_links_per_chip(topology);
  if (traffic.bytes > 0 && links > 0) {
    const double per_chip = links * topology.inter_chip().bandwidth_Bps();
    bound.chip_injection_s =
        traffic.bytes /
        (traffic.sending_chips * (topology.multislice() ? per_chip + dcn_Bps_per_chip(topology) : per_chip));
  }
  const ChipTraffic across = slice_traffic(topology, request, s);
  if (across.bytes > 0) bound.dcn_s = across.bytes / (across.sending_chips * dcn_Bps_per_chip(topology));
  bound.time_s = bound.core_injection_s;
  bound.binding = "core_injection";
  const std::pair<double, const char*> others[] = {{bound.chip_injection_s, "chip_injection"},
                                                   {bound.latency_s, "latency"},
                                                   {bound.dcn_s, "dcn"},
                                                   {bound.bisection_s, "bisection"}};
  for (const auto& [time_s, name] : others) {
    if (time_s > bound.time_s) bound.time_s = time_s, bound.binding = name;
  }
  return bound;
}

}  // namespace tpusim::sim
