#pragma once
// sim-private: the walk of predict_alpha_beta (bounds.hpp) over a schedule, round by round: each transfer
// starts when both its ranks are ready and takes its route's latency plus bytes / bandwidth. Apart from
// bounds.cpp so that each kind of round (a repeat of a lockstep round, a run repeating earlier rounds with a
// period, a round computed transfer by transfer) is a step of its own, and the prediction reads as the walk
// followed by what it sums up (busiest link, contention, closed form).
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/collective.hpp"
#include "sim/round_history.hpp"
#include "sim/route_cache.hpp"
#include "sim/schedule.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

// When a directed link carried a transfer, for the contention check.
struct LinkInterval {
  double start, end;
};

class AlphaBetaWalk {
 public:
  // fold and give_up_after_s: as predict_alpha_beta's.
  AlphaBetaWalk(const topo::Topology& topology, const CollectiveRequest& request, const Schedule& schedule,
                bool fold, double give_up_after_s);

  // Walks every round, or stops at the first round that ends after give_up_after_s.
  void run();

  double time_s() const { return time_s_; }  // the critical path so far
  std::uint64_t transfers() const { return transfers_; }
  std::uint64_t folded_rounds() const { return folded_rounds_; }
  const std::vector<double>& link_bytes() const { return link_bytes_; }  // per directed link
  // Whether every link's busy intervals were kept (not beyond a transfer count where memory forbids).
  bool contention_checked() const { return check_; }
  std::vector<std::vector<LinkInterval>> take_busy() { return std::move(busy_); }
  // Every transfer within a slice one hop over links of one latency and bandwidth (negative: none seen).
  bool uniform() const { return uniform_; }
  double uniform_latency_s() const { return uniform_latency_; }
  double uniform_bandwidth_Bps() const { return uniform_bandwidth_; }

 private:
  bool gave_up() const { return time_s_ > give_up_after_s_; }
  void add_interval(int link, double start, double end);
  void count_transfers(std::size_t count);
  void flush();
  void add_lockstep_repeat();
  std::size_t add_periodic_run(std::size_t k, const RecordedRound& model);
  void add_computed_round(std::size_t k);

  const topo::Topology& topology_;
  const CollectiveRequest& request_;
  const Schedule& schedule_;
  const bool fold_;
  const double give_up_after_s_;
  RouteCache routes_;

  double time_s_ = 0;
  std::uint64_t transfers_ = 0, folded_rounds_ = 0;
  std::vector<double> ready_;       // per rank: when its last transfer so far ends
  std::vector<double> link_bytes_;  // per directed link
  std::vector<std::vector<LinkInterval>> busy_;
  bool check_ = true;
  bool uniform_ = true;
  double uniform_latency_ = -1, uniform_bandwidth_ = -1;
  std::vector<Transfer> round_;                      // the round being computed
  std::vector<std::pair<topo::Rank, double>> ends_;  // (rank, end) of its transfers

  // The last round computed, kept while it ran in lockstep (every rank of it ready at one instant before and
  // at one instant after): a following round with the same (source, destination, size) pattern is then the
  // same round shifted by its duration, so it is added without routing a transfer (as the simulator folds).
  std::vector<Transfer> lockstep_;
  struct Carried {
    int link;
    double bytes, duration_s;
  };
  std::vector<Carried> lockstep_links_;
  double lockstep_end_ = 0, lockstep_duration_ = 0;
  // Folded rounds whose link bytes are still to be added (once link intervals are no longer checked, a streak
  // of repeats costs one pass over the round's links, not one per round) and whose ranks' ready times are
  // still to be set.
  std::uint64_t unflushed_ = 0;
  bool ready_stale_ = false;
  // Rounds computed in lockstep one after the other (round_history.hpp): a round that repeats one of them a
  // period back starts a run of rounds repeating them in turn, added as the simulator folds them.
  RoundHistory history_;
};

}  // namespace tpusim::sim
