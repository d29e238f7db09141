#include "sim/bounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "sim/algorithm_registry.hpp"
#include "sim/algorithms/algorithms.hpp"
#include "sim/request_check.hpp"
#include "sim/routes.hpp"
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

double log2_ceil(int p) { return p <= 1 ? 0.0 : std::ceil(std::log2(static_cast<double>(p)) - 1e-12); }

// Recursive halving (reduce-scatter) or doubling (allgather) of s bytes on k members with chunk i at
// position i (halving pairs j xor p'/2 first, doubling j xor 1 first), every transfer one hop over identical
// links with none shared (a hypercube), chunks of c = s/k bytes.
//   k = 2^m: the step with partner j xor 2^i moves 2^i chunks: m a + (k-1)/k s/B.
//   otherwise k = p' + e, p' = 2^m the largest power of two below k, and the fold adds two rounds:
//     fold      a + s/B (reduce-scatter: an extra member's whole buffer) or a + c/B (allgather: its chunk);
//     step      partner j xor 2^i, i = 0..m-1: a + (2^i + min(e, 2^i)) c/B. Core members exchange blocks of
//               2^i consecutive core indices, those below e standing for two chunks; the block of index 0
//               has the most, min(e, 2^i), and member 0 also waits for a fold, so its chain of steps is the
//               critical path;
//     unfold    a + c/B (reduce-scatter: the extra member's chunk) or a + s/B (allgather: the whole result,
//               one message rather than the two around the member's own chunk).
//   Both: (m + 2) a + (k + p' + sum_{i<m} min(e, 2^i)) c/B.
double recursive_halving_doubling(int k, double s, double alpha, double bandwidth) {
  int core = 1, steps = 0;
  while (core * 2 <= k) core *= 2, ++steps;
  const int extra = k - core;
  double chunks = core - 1;
  for (int i = 0; i < steps; ++i) chunks += std::min(extra, 1 << i);
  int rounds = steps;
  if (extra > 0) {
    rounds += 2;
    chunks += k + 1;
  }
  return rounds * alpha + chunks * (s / k) / bandwidth;
}

// Time of one reduce-scatter or allgather of a line algorithm on k members and s bytes; nothing for a name
// without a closed form, so that a new algorithm never takes another one's formula.
std::optional<double> line_half(const std::string& name, int k, double s, double alpha, double bandwidth) {
  if (k <= 1) return 0.0;
  const double fraction = static_cast<double>(k - 1) / k;
  if (name == "ring") return (k - 1) * alpha + fraction * s / bandwidth;
  if (name == "bidir_ring") return (k - 1) * alpha + fraction * s / (2 * bandwidth);
  if (name == "halving_doubling") return recursive_halving_doubling(k, s, alpha, bandwidth);
  return std::nullopt;
}

// A line allreduce: reduce-scatter then allgather, except halving-doubling on other sizes than powers of two,
// which folds the whole buffer in and out (2(a + S/B)) around the power-of-two allreduce of p' members.
std::optional<double> line_allreduce(const std::string& name, int k, double s, double alpha,
                                     double bandwidth) {
  if (k <= 1) return 0.0;
  if (name == "halving_doubling" && !algorithms::is_power_of_two(k)) {
    int core = 1;
    while (core * 2 <= k) core *= 2;
    const auto half = line_half(name, core, s, alpha, bandwidth);
    return 2 * (alpha + s / bandwidth) + 2 * *half;
  }
  const auto half = line_half(name, k, s, alpha, bandwidth);
  if (!half) return std::nullopt;
  return 2 * *half;
}

std::string half_formula(const std::string& name, int p) {
  if (name == "ring") return "(p-1)a + (p-1)/p S/B";
  if (name == "bidir_ring") return "(p-1)a + (p-1)/p S/(2B)";
  if (algorithms::is_power_of_two(p)) return "log2(p) a + (p-1)/p S/B";
  return "(log2(p')+2) a + (p + p' + sum_{i<log2 p'} min(e, 2^i)) S/(pB), p' = 2^floor(log2 p), e = p-p'";
}

std::string allreduce_formula(const std::string& name, int p) {
  if (name == "ring") return "2(p-1)a + 2(p-1)/p S/B";
  if (name == "bidir_ring") return "2(p-1)a + (p-1)/p S/B";
  if (algorithms::is_power_of_two(p)) return "2 log2(p) a + 2(p-1)/p S/B";
  return "2(a + S/B) + 2 log2(p') a + 2(p'-1)/p' S/B, p' = 2^floor(log2 p)";
}

struct ClosedForm {
  double time_s = -1;
  std::string formula;
};

ClosedForm closed_form(const CollectiveRequest& request, double alpha, double bandwidth) {
  ClosedForm form;
  const double s = static_cast<double>(request.elements) * request.element_bytes;
  // Permute pairs need not form groups (build_request adds them, hand-made requests may not).
  if (request.kind == CollectiveKind::permute) return {alpha + s / bandwidth, "a + S/B"};
  if (request.groups.empty()) return form;
  const auto& group = request.groups.front();
  const int p = group.size();
  std::vector<std::string> names = request.algorithms;
  if (names.empty()) names = {default_algorithm(request.kind)};
  if (names.size() == 1 && names.front() == "bucket2d") names = {"bidir_ring", "bidir_ring"};
  const std::string& name = names.front();
  std::optional<double> time;
  if (names.size() == 1) {
    switch (request.kind) {
      case CollectiveKind::allreduce:
        time = line_allreduce(name, p, s, alpha, bandwidth);
        form.formula = allreduce_formula(name, p);
        break;
      case CollectiveKind::reduce_scatter:
      case CollectiveKind::allgather:
        time = line_half(name, p, s, alpha, bandwidth);
        form.formula = half_formula(name, p);
        break;
      case CollectiveKind::alltoall:
        if (name == "pairwise") time = (p - 1) * alpha + (p - 1.0) / p * s / bandwidth;
        form.formula = "(p-1)a + (p-1)/p S/B";
        break;
      case CollectiveKind::broadcast:
        if (name == "binomial") time = log2_ceil(p) * (alpha + s / bandwidth);
        form.formula = "ceil(log2 p)(a + S/B)";
        break;
      default:
        break;
    }
    if (time)
      form.time_s = *time;
    else
      form.formula.clear();
    return form;
  }
  // Composed by dimension: reduce-scatter down to the last dimension's share, allreduce there, allgather
  // back.
  double total = 0, share = s;
  const int dims = static_cast<int>(names.size());
  if (request.kind == CollectiveKind::allreduce) {
    for (int d = 0; d + 1 < dims; ++d) {
      const auto half = line_half(names[d], group.dims[d], share, alpha, bandwidth);
      if (!half) return form;
      total += 2 * *half;
      share /= group.dims[d];
    }
    const auto last = line_allreduce(names.back(), group.dims.back(), share, alpha, bandwidth);
    if (!last) return form;
    total += *last;
    form.formula = "sum over dimensions d<n of 2 RS_d(S/(k_0..k_{d-1})) + AR_n(S/(k_0..k_{n-1}))";
    if (names == std::vector<std::string>{"bidir_ring", "bidir_ring"}) {
      form.formula = "2(kx-1)a + (kx-1)/kx S/B + 2(ky-1)a + (ky-1)/ky (S/kx)/B";
    }
  } else if (request.kind == CollectiveKind::reduce_scatter || request.kind == CollectiveKind::allgather) {
    // Reduce-scatter runs the outermost dimension first on all the data; allgather ends with it.
    for (int d = dims - 1; d >= 0; --d) {
      const auto half = line_half(names[d], group.dims[d], share, alpha, bandwidth);
      if (!half) return form;
      total += *half;
      share /= group.dims[d];
    }
    form.formula = "sum over dimensions of RS_d on the share left by the outer ones";
  } else {
    return form;
  }
  form.time_s = total;
  return form;
}

}  // namespace

double injection_bandwidth_Bps(const topo::Topology& topology) {
  int out_links = 0;
  for (const int size : topology.chip_dims()) {
    if (size > 1) out_links += 2;
  }
  return (topology.cores_per_chip() - 1) * topology.intra_chip().bandwidth_Bps() +
         out_links * topology.inter_chip().bandwidth_Bps();
}

AlphaBetaPrediction predict_alpha_beta(const topo::Topology& topology, const CollectiveRequest& request) {
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
  for (std::size_t k = 0; k < schedule.round_count(); ++k) {
    round.clear();
    schedule.append_round(k, round);
    ends.clear();
    for (const auto& t : round) {
      const Route& route = routes.get(t.src, t.dst);
      const double bytes = static_cast<double>(t.count) * request.element_bytes;
      const double start = std::max(ready[t.src], ready[t.dst]);
      const double end = start + route.latency_s + bytes / route.bandwidth_Bps;
      ends.emplace_back(t.src, end);
      ends.emplace_back(t.dst, end);
      prediction.time_s = std::max(prediction.time_s, end);
      ++prediction.transfers;
      if (route.links.size() != 1 || (uniform_latency >= 0 && (route.latency_s != uniform_latency ||
                                                               route.bandwidth_Bps != uniform_bandwidth))) {
        uniform = false;
      }
      uniform_latency = route.latency_s;
      uniform_bandwidth = route.bandwidth_Bps;
      if (check && prediction.transfers > kMaxCheckedTransfers) {
        check = false;
        busy = {};  // the intervals are no longer needed: free them now, not after the last round
      }
      for (const int link : route.links) {
        if (is_loopback(topology, link)) continue;  // FATPIPE: flows do not share it
        link_bytes[link] += bytes;
        if (check) {
          if (busy.empty()) busy.resize(link_bytes.size());
          busy[link].push_back({start, end});
        }
      }
    }
    for (const auto& [rank, end] : ends) ready[rank] = std::max(ready[rank], end);
  }
  for (std::size_t link = 0; link < link_bytes.size(); ++link) {
    if (link_bytes[link] > prediction.max_link_bytes) prediction.max_link_bytes = link_bytes[link];
  }
  prediction.max_link_time_s = prediction.max_link_bytes / topology.inter_chip().bandwidth_Bps();
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
    const auto form = closed_form(request, uniform_latency, uniform_bandwidth);
    prediction.closed_form_s = form.time_s;
    prediction.closed_form = form.formula;
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
      bound.bandwidth_s = 2 * fraction * s / injection;
      bound.latency_s = log2_ceil(p) * alpha_min;
      break;
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::allgather:
      bound.bandwidth_s = fraction * s / injection;
      bound.latency_s = log2_ceil(p) * alpha_min;
      break;
    case CollectiveKind::alltoall: {
      bound.bandwidth_s = fraction * s / injection;
      bound.latency_s = alpha_min;
      const auto& group = request.groups.front();
      if (request.groups.size() == 1 && group.size() == topology.num_cores()) {
        const double pair_bytes = s / p;
        const auto& dims = topology.chip_dims();
        for (const int k : dims) {
          if (k < 2) continue;
          const double n1 = static_cast<double>(p) * (k / 2) / k, n2 = p - n1;
          const double cut_links = (topology.wraparound() ? 2.0 : 1.0) * topology.num_chips() / k;
          const double cut_Bps = cut_links * 2 * topology.inter_chip().bandwidth_Bps();
          bound.bisection_s = std::max(bound.bisection_s, 2 * n1 * n2 * pair_bytes / cut_Bps);
        }
      }
      break;
    }
    case CollectiveKind::broadcast:
      bound.bandwidth_s = s / injection;
      for (const auto& group : request.groups)
        bound.latency_s = std::max(bound.latency_s, furthest(group.ranks.front(), group.ranks));
      break;
    case CollectiveKind::permute:
      bound.bandwidth_s = s / injection;
      for (const auto& [src, dst] : request.permutation)
        bound.latency_s = std::max(bound.latency_s, furthest(src, {dst}));
      break;
  }
  bound.time_s = bound.bandwidth_s;
  bound.binding = "bandwidth";
  if (bound.latency_s > bound.time_s) bound.time_s = bound.latency_s, bound.binding = "latency";
  if (bound.bisection_s > bound.time_s) bound.time_s = bound.bisection_s, bound.binding = "bisection";
  return bound;
}

}  // namespace tpusim::sim
