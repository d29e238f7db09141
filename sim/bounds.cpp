#include "sim/bounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "sim/algorithm_registry.hpp"
#include "sim/request_check.hpp"
#include "sim/round_history.hpp"
#include "sim/routes.hpp"
#include "topologies/chip_graph.hpp"
#include "topologies/rank_mapping.hpp"

namespace tpusim::sim {
namespace {

// Beyond this many transfers the per-link interval check is skipped (memory), the critical path is not.
constexpr std::uint64_t kMaxCheckedTransfers = 4'000'000;

class RouteCache {
 public:
  explicit RouteCache(const topo::Topology& topology) : topology_(topology) {}
  const Route& get(topo::Rank src, topo::Rank dst) {
    const int cores = topology_.cores_per_chip();
    const int from = src / cores, to = dst / cores;
    const long long key = static_cast<long long>(from) * topology_.num_chips() + to;
    auto found = cache_.find(key);
    // Every pair of distinct cores on the same two chips takes the same links.
    if (found == cache_.end()) found = cache_.emplace(key, route_between(topology_, src, dst)).first;
    return found->second;
  }

 private:
  const topo::Topology& topology_;
  std::unordered_map<long long, Route> cache_;
};

struct Interval {
  double start, end;
};

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

}  // namespace

double injection_bandwidth_Bps(const topo::Topology& topology) {
  const double on_pod = (topology.cores_per_chip() - 1) * topology.intra_chip().bandwidth_Bps() +
                        inter_chip_links_per_chip(topology) * topology.inter_chip().bandwidth_Bps();
  return topology.multislice() ? on_pod + dcn_Bps_per_chip(topology) : on_pod;
}

AlphaBetaPrediction predict_alpha_beta(const topo::Topology& topology, const CollectiveRequest& request,
                                       bool fold, double give_up_after_s) {
  validate_request(topology, request);
  const Schedule schedule = build_schedule(topology, request);
  AlphaBetaPrediction prediction;
  RouteCache routes(topology);
  std::vector<double> ready(topology.num_cores(), 0.0);
  std::vector<double> link_bytes(directed_link_count(topology), 0.0);
  std::vector<std::vector<Interval>> busy;
  bool check = true;
  bool uniform = true;
  double uniform_latency = -1, uniform_bandwidth = -1;
  std::vector<Transfer> round;
  std::vector<std::pair<topo::Rank, double>> ends;
  // The last round computed, kept while it ran in lockstep (every rank of it ready at one instant before and
  // at one instant after): a following round with the same (source, destination, size) pattern is then the
  // same round shifted by its duration, so it is added without routing a transfer (as the simulator folds).
  std::vector<Transfer> lockstep;
  struct Carried {
    int link;
    double bytes, duration_s;
  };
  std::vector<Carried> lockstep_links;
  double lockstep_end = 0, lockstep_duration = 0;
  auto add_interval = [&](int link, double start, double end) {
    if (!check) return;
    if (busy.empty()) busy.resize(link_bytes.size());
    busy[link].push_back({start, end});
  };
  auto count_transfers = [&](std::size_t count) {
    prediction.transfers += count;
    if (check && prediction.transfers > kMaxCheckedTransfers) {
      check = false;
      busy = {};  // the intervals are no longer needed: free them now, not after the last round
    }
  };
  // Folded rounds whose link bytes are still to be added (once link intervals are no longer checked, a streak
  // of repeats costs one pass over the round's links, not one per round) and whose ranks' ready times are
  // still to be set.
  std::uint64_t unflushed = 0;
  bool ready_stale = false;
  // Rounds computed in lockstep one after the other (round_history.hpp): a round that repeats one of them a
  // period back starts a run of rounds repeating them in turn, added as the simulator folds them.
  RoundHistory history(topology.num_cores());
  auto flush = [&] {
    for (const auto& c : lockstep_links) link_bytes[c.link] += c.bytes * static_cast<double>(unflushed);
    unflushed = 0;
    if (ready_stale) {
      for (const auto& t : lockstep) ready[t.src] = ready[t.dst] = lockstep_end;
    }
    ready_stale = false;
  };
  for (std::size_t k = 0; k < schedule.round_count(); ++k) {
    // The schedule may know that round k repeats round k - 1, which had the lockstep pattern.
    const bool known_repeat = fold && !lockstep.empty() && schedule.repeats_previous(k);
    if (!known_repeat) {
      round.clear();
      schedule.append_round(k, round);
    }
    if (fold && !lockstep.empty() && (known_repeat || same_pattern(round, lockstep))) {
      const double base = lockstep_end;
      lockstep_end = base + lockstep_duration;
      ready_stale = true;
      prediction.time_s = std::max(prediction.time_s, lockstep_end);
      count_transfers(lockstep.size());
      if (check) {
        for (const auto& c : lockstep_links) {
          link_bytes[c.link] += c.bytes;
          add_interval(c.link, base, base + c.duration_s);
        }
      } else {
        ++unflushed;
      }
      ++prediction.folded_rounds;
      if (prediction.time_s > give_up_after_s) break;
      continue;
    }
    flush();
    if (const RecordedRound* model = fold && !known_repeat ? history.match(k, round) : nullptr) {
      const std::size_t first = model->round, period = k - first;
      std::vector<std::uint64_t> times(period, 0);
      std::vector<double> slot_end(period, 0);
      double end = history.at(k - 1).end_s;
      std::size_t x = k;
      for (; x < schedule.round_count(); ++x) {
        const std::size_t slot = (x - first) % period;
        const RecordedRound& repeated = history.at(first + slot);
        if (x > k && !schedule.repeats(x, period)) {
          round.clear();
          schedule.append_round(x, round);
          if (!same_pattern(round, repeated.transfers)) break;
        }
        const double base = end;
        end = base + (repeated.end_s - repeated.start_s);
        slot_end[slot] = end;
        count_transfers(repeated.transfers.size());
        if (!check) {
          ++times[slot];  // its link bytes are added once per kept round below
          continue;
        }
        for (const auto& t : repeated.transfers) {
          for (const int link : routes.get(t.src, t.dst).links) {
            if (is_loopback(topology, link)) continue;
            link_bytes[link] += static_cast<double>(t.count) * request.element_bytes;
            add_interval(link, base, end);
          }
        }
      }
      for (std::size_t slot = 0; slot < period; ++slot) {
        if (times[slot] == 0) continue;
        const double repeats = static_cast<double>(times[slot]);
        for (const auto& t : history.at(first + slot).transfers) {
          for (const int link : routes.get(t.src, t.dst).links) {
            if (!is_loopback(topology, link))
              link_bytes[link] += static_cast<double>(t.count) * request.element_bytes * repeats;
          }
        }
      }
      // Each rank is ready when its last transfer ends: within the last period of folded rounds.
      for (std::size_t r = x - std::min(x - k, period); r < x; ++r) {
        const std::size_t slot = (r - first) % period;
        for (const auto& t : history.at(first + slot).transfers) ready[t.src] = ready[t.dst] = slot_end[slot];
      }
      prediction.time_s = std::max(prediction.time_s, end);
      prediction.folded_rounds += x - k;
      history.clear();
      lockstep.clear();
      k = x - 1;
      if (prediction.time_s > give_up_after_s) break;
      continue;
    }
    const double time_before = prediction.time_s;
    ends.clear();
    lockstep_links.clear();
    bool same_start = !round.empty();
    const double round_start = round.empty() ? 0 : ready[round.front().src];
    // Whether every transfer starts at one instant and ends at one instant (ranks idle since earlier may
    // take part): what the round history needs.
    bool one_start = !round.empty(), one_end = one_start;
    double first_start = -1, first_end = -1;
    for (const auto& t : round) {
      const Route& route = routes.get(t.src, t.dst);
      const double bytes = static_cast<double>(t.count) * request.element_bytes;
      same_start = same_start && ready[t.src] == round_start && ready[t.dst] == round_start;
      const double start = std::max(ready[t.src], ready[t.dst]);
      const double end = start + route.latency_s + bytes / route.bandwidth_Bps;
      if (first_start < 0) first_start = start, first_end = end;
      one_start = one_start && start == first_start;
      one_end = one_end && end == first_end;
      ends.emplace_back(t.src, end);
      ends.emplace_back(t.dst, end);
      prediction.time_s = std::max(prediction.time_s, end);
      count_transfers(1);
      // Between slices every route is the same two DCN links: the closed forms that model the DCN take its
      // figures from the topology (algorithm_registry.cpp), so such transfers leave the ICI ones uniform.
      const bool across_slices =
          topology.multislice() && !route.links.empty() && is_dcn_link(topology, route.links.front());
      if (across_slices) {
      } else if (route.links.size() != 1 ||
                 (uniform_latency >= 0 &&
                  (route.latency_s != uniform_latency || route.bandwidth_Bps != uniform_bandwidth))) {
        uniform = false;
      }
      if (!across_slices) {
        uniform_latency = route.latency_s;
        uniform_bandwidth = route.bandwidth_Bps;
      }
      for (const int link : route.links) {
        if (is_loopback(topology, link)) continue;  // FATPIPE: flows do not share it
        link_bytes[link] += bytes;
        add_interval(link, start, end);
        lockstep_links.push_back({link, bytes, end - start});
      }
    }
    for (const auto& [rank, end] : ends) ready[rank] = std::max(ready[rank], end);
    bool same_end = same_start;
    const double round_end = ends.empty() ? 0 : ready[ends.front().first];
    for (const auto& [rank, end] : ends) same_end = same_end && ready[rank] == round_end;
    lockstep.clear();
    if (fold && one_start && one_end) {
      history.record(k, std::vector<Transfer>(round), first_start, first_end, time_before <= first_start);
    } else {
      history.clear();
    }
    if (fold && same_end) {
      lockstep.swap(round);
      lockstep_end = round_end;
      lockstep_duration = round_end - round_start;
    }
    if (prediction.time_s > give_up_after_s) break;
  }
  if (prediction.time_s > give_up_after_s) {
    prediction.gave_up = true;
    return prediction;
  }
  flush();
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
  prediction.contention_checked = check;
  if (check) {
    prediction.contention_free = true;
    const double slack = 1e-12 * std::max(prediction.time_s, 1e-30);
    for (auto& intervals : busy) {
      std::sort(intervals.begin(), intervals.end(),
                [](const Interval& a, const Interval& b) { return a.start < b.start; });
      double reach = -1;
      for (const auto& interval : intervals) {
        if (interval.start < reach - slack) prediction.contention_free = false;
        reach = std::max(reach, interval.end);
      }
    }
  }
  prediction.uniform = uniform && prediction.transfers > 0;
  if (prediction.uniform) {
    if (uniform_latency < 0) {  // every transfer crossed slices
      uniform_latency = topology.inter_chip().latency_s();
      uniform_bandwidth = topology.inter_chip().bandwidth_Bps();
    }
    const auto form = closed_form(topology, request, uniform_latency, uniform_bandwidth);
    prediction.closed_form_s = form.time_s;
    prediction.closed_form = form.formula;
    const std::uint64_t multiple = form.exact_multiple > 0
                                       ? form.exact_multiple
                                       : 2 * static_cast<std::uint64_t>(largest_group(request));
    prediction.closed_form_exact = form.time_s >= 0 && request.elements % multiple == 0;
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
