#pragma once
// Analytical figures every simulated collective is checked against (sim/README.md, The collective cost
// model), computed without simulating. No SimGrid here.
#include <cstdint>
#include <limits>
#include <string>

#include "sim/collective.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

struct AlphaBetaPrediction {
  // The schedule's critical path under the dependency rule of schedule.hpp, every transfer taking its route's
  // latency plus bytes / bandwidth (alpha-beta, cut-through), as if it had the links to itself. The ideal
  // network can never be faster; it is exactly this when the schedule is contention free.
  double time_s = 0;
  bool contention_checked = false;
  bool contention_free = false;  // no directed link carries two transfers at overlapping times
  // Every transfer one hop over identical links: then the closed form (sim/README.md, Closed forms) applies.
  bool uniform = false;
  double closed_form_s = -1;       // negative when the algorithm or group has no closed form here
  std::string closed_form;         // the formula used
  bool closed_form_exact = false;  // the element count splits as evenly as the formula assumes
  std::uint64_t transfers = 0;
  std::uint64_t folded_rounds = 0;  // rounds added as a repeat of the round before (fold)
  // The busiest directed inter-chip link: its bytes and bytes / bandwidth, a lower bound of this schedule
  // with this routing (what explains dimension-order routing's all-to-all penalty).
  double max_link_bytes = 0;
  double max_link_time_s = 0;
  // The walk stopped once the critical path passed give_up_after_s: time_s is then only a lower bound of it,
  // and nothing else is filled in.
  bool gave_up = false;
};

// fold: a round that repeats a round whose ranks ran in lockstep is that round shifted by its duration and is
// added as such (exact; off only to test that).
// give_up_after_s: for a caller that only needs to know whether the critical path stays within it.
AlphaBetaPrediction predict_alpha_beta(const topo::Topology& topology, const CollectiveRequest& request,
                                       bool fold = true,
                                       double give_up_after_s = std::numeric_limits<double>::infinity());

struct LowerBound {
  double time_s = 0;  // the largest of the terms below
  // Bytes each member must send or receive / what one core can inject (injection_bandwidth_Bps): binds for
  // groups on one chip.
  double core_injection_s = 0;
  // Bytes that must move between chips, the chip's cores counted together, / what the chips that must send
  // them can put on their inter-chip links: 2(q-1)S for an allreduce over q chips, and so on (bounds.cpp).
  // On tpu-v2-pod a 64 MiB allreduce over all 512 cores needs 0.539 ms however fast the on-chip link is.
  double chip_injection_s = 0;
  double latency_s = 0;    // ceil(log2 p) alpha (allreduce, reduce-scatter, allgather) or the furthest member
  double bisection_s = 0;  // all-to-all over the whole pod: bytes across the best halving cut / its bandwidth
  // Multislice pods: the bytes that must cross between slices (the chip_injection count with each slice as
  // one node: 2(q-1)S for an allreduce over q slices) / the DCN NICs of the chips of the groups that span
  // slices, the only way across. The hierarchical allreduce meets it: 2(q-1)/q (S/m) / B_dcn on m chips per
  // slice.
  double dcn_s = 0;
  std::string binding;  // "core_injection", "chip_injection", "latency", "dcn" or "bisection"
};

// Algorithm-independent: no algorithm on this topology can beat it.
LowerBound lower_bound(const topo::Topology& topology, const CollectiveRequest& request);

// Upper bound of what one core can inject: the intra-chip links to the other cores of its chip plus all
// inter-chip links of its chip (and its DCN NIC on a multislice pod).
double injection_bandwidth_Bps(const topo::Topology& topology);

}  // namespace tpusim::sim
