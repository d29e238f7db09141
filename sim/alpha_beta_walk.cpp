#include "sim/alpha_beta_walk.hpp"

#include <algorithm>

#include "sim/routes.hpp"

namespace tpusim::sim {
namespace {

// Beyond this many transfers the per-link interval check is skipped (memory), the critical path is not.
constexpr std::uint64_t kAlphaBetaMaxCheckedTransfers = 4'000'000;

}  // namespace

AlphaBetaWalk::AlphaBetaWalk(const topo::Topology& topology, const CollectiveRequest& request,
                             const Schedule& schedule, bool fold, double give_up_after_s)
    : topology_(topology),
      request_(request),
      schedule_(schedule),
      fold_(fold),
      give_up_after_s_(give_up_after_s),
      routes_(topology),
      ready_(topology.num_cores(), 0.0),
      link_bytes_(directed_link_count(topology), 0.0),
      history_(topology.num_cores()) {}

// Each round is one of three kinds: the lockstep round before again (shifted by its duration), the start of
// a run repeating the kept rounds with a period, or a round to compute transfer by transfer.
void AlphaBetaWalk::run() {
  for (std::size_t k = 0; k < schedule_.round_count(); ++k) {
    // The schedule may know that round k repeats round k - 1, which had the lockstep pattern.
    const bool known_repeat = fold_ && !lockstep_.empty() && schedule_.repeats_previous(k);
    if (!known_repeat) {
      round_.clear();
      schedule_.append_round(k, round_);
    }
    if (fold_ && !lockstep_.empty() && (known_repeat || same_pattern(round_, lockstep_))) {
      add_lockstep_repeat();
    } else {
      flush();
      if (const RecordedRound* model = fold_ && !known_repeat ? history_.match(k, round_) : nullptr) {
        k = add_periodic_run(k, *model) - 1;
      } else {
        add_computed_round(k);
      }
    }
    if (gave_up()) return;
  }
  flush();
}

void AlphaBetaWalk::add_interval(int link, double start, double end) {
  if (!check_) return;
  if (busy_.empty()) busy_.resize(link_bytes_.size());
  busy_[link].push_back({start, end});
}

void AlphaBetaWalk::count_transfers(std::size_t count) {
  transfers_ += count;
  if (check_ && transfers_ > kAlphaBetaMaxCheckedTransfers) {
    check_ = false;
    busy_ = {};  // the intervals are no longer needed: free them now, not after the last round
  }
}

// Adds the link bytes and ready times that folded lockstep repeats left pending.
void AlphaBetaWalk::flush() {
  for (const auto& c : lockstep_links_) link_bytes_[c.link] += c.bytes * static_cast<double>(unflushed_);
  unflushed_ = 0;
  if (ready_stale_) {
    for (const auto& t : lockstep_) ready_[t.src] = ready_[t.dst] = lockstep_end_;
  }
  ready_stale_ = false;
}

// The lockstep round again, shifted by its duration: its links' bytes and intervals, no routing.
void AlphaBetaWalk::add_lockstep_repeat() {
  const double base = lockstep_end_;
  lockstep_end_ = base + lockstep_duration_;
  ready_stale_ = true;
  time_s_ = std::max(time_s_, lockstep_end_);
  count_transfers(lockstep_.size());
  if (check_) {
    for (const auto& c : lockstep_links_) {
      link_bytes_[c.link] += c.bytes;
      add_interval(c.link, base, base + c.duration_s);
    }
  } else {
    ++unflushed_;
  }
  ++folded_rounds_;
}

// Round k repeats the kept round `model`, a period back: adds it and the rounds after it while they repeat
// the kept rounds in turn, each shifted by the duration of the round it repeats. Returns the first round
// that does not.
std::size_t AlphaBetaWalk::add_periodic_run(std::size_t k, const RecordedRound& model) {
  const std::size_t first = model.round, period = k - first;
  std::vector<std::uint64_t> times(period, 0);
  std::vector<double> slot_end(period, 0);
  double end = history_.at(k - 1).end_s;
  std::size_t x = k;
  for (; x < schedule_.round_count(); ++x) {
    const std::size_t slot = (x - first) % period;
    const RecordedRound& repeated = history_.at(first + slot);
    if (x > k && !schedule_.repeats(x, period)) {
      round_.clear();
      schedule_.append_round(x, round_);
      if (!same_pattern(round_, repeated.transfers)) break;
    }
    const double base = end;
    end = base + (repeated.end_s - repeated.start_s);
    slot_end[slot] = end;
    count_transfers(repeated.transfers.size());
    if (!check_) {
      ++times[slot];  // its link bytes are added once per kept round below
      continue;
    }
    for (const auto& t : repeated.transfers) {
      for (const int link : routes_.get(t.src, t.dst).links) {
        if (is_loopback(topology_, link)) continue;
        link_bytes_[link] += static_cast<double>(t.count) * request_.element_bytes;
        add_interval(link, base, end);
      }
    }
  }
  for (std::size_t slot = 0; slot < period; ++slot) {
    if (times[slot] == 0) continue;
    const double repeats = static_cast<double>(times[slot]);
    for (const auto& t : history_.at(first + slot).transfers) {
      for (const int link : routes_.get(t.src, t.dst).links) {
        if (!is_loopback(topology_, link))
          link_bytes_[link] += static_cast<double>(t.count) * request_.element_bytes * repeats;
      }
    }
  }
  // Each rank is ready when its last transfer ends: within the last period of folded rounds.
  for (std::size_t r = x - std::min(x - k, period); r < x; ++r) {
    const std::size_t slot = (r - first) % period;
    for (const auto& t : history_.at(first + slot).transfers) ready_[t.src] = ready_[t.dst] = slot_end[slot];
  }
  time_s_ = std::max(time_s_, end);
  folded_rounds_ += x - k;
  history_.clear();
  lockstep_.clear();
  return x;
}

// Round k (in round_) transfer by transfer: each starts when both its ranks are ready and holds its route's
// links for latency + bytes / bandwidth. Then whether it ran in lockstep (to fold the repeats after it) and
// alone (to keep it in the history).
void AlphaBetaWalk::add_computed_round(std::size_t k) {
  const double time_before = time_s_;
  ends_.clear();
  lockstep_links_.clear();
  bool same_start = !round_.empty();
  const double round_start = round_.empty() ? 0 : ready_[round_.front().src];
  // Whether every transfer starts at one instant and ends at one instant (ranks idle since earlier may
  // take part): what the round history needs.
  bool one_start = !round_.empty(), one_end = one_start;
  double first_start = -1, first_end = -1;
  for (const auto& t : round_) {
    const Route& route = routes_.get(t.src, t.dst);
    const double bytes = static_cast<double>(t.count) * request_.element_bytes;
    same_start = same_start && ready_[t.src] == round_start && ready_[t.dst] == round_start;
    const double start = std::max(ready_[t.src], ready_[t.dst]);
    const double end = start + route.latency_s + bytes / route.bandwidth_Bps;
    if (first_start < 0) first_start = start, first_end = end;
    one_start = one_start && start == first_start;
    one_end = one_end && end == first_end;
    ends_.emplace_back(t.src, end);
    ends_.emplace_back(t.dst, end);
    time_s_ = std::max(time_s_, end);
    count_transfers(1);
    // Between slices every route is the same two DCN links: the closed forms that model the DCN take its
    // figures from the topology (algorithm_registry.cpp), so such transfers leave the ICI ones uniform.
    const bool across_slices =
        topology_.multislice() && !route.links.empty() && is_dcn_link(topology_, route.links.front());
    if (across_slices) {
    } else if (route.links.size() != 1 ||
               (uniform_latency_ >= 0 &&
                (route.latency_s != uniform_latency_ || route.bandwidth_Bps != uniform_bandwidth_))) {
      uniform_ = false;
    }
    if (!across_slices) {
      uniform_latency_ = route.latency_s;
      uniform_bandwidth_ = route.bandwidth_Bps;
    }
    for (const int link : route.links) {
      if (is_loopback(topology_, link)) continue;  // FATPIPE: flows do not share it
      link_bytes_[link] += bytes;
      add_interval(link, start, end);
      lockstep_links_.push_back({link, bytes, end - start});
    }
  }
  for (const auto& [rank, end] : ends_) ready_[rank] = std::max(ready_[rank], end);
  bool same_end = same_start;
  const double round_end = ends_.empty() ? 0 : ready_[ends_.front().first];
  for (const auto& [rank, end] : ends_) same_end = same_end && ready_[rank] == round_end;
  lockstep_.clear();
  if (fold_ && one_start && one_end) {
    history_.record(k, std::vector<Transfer>(round_), first_start, first_end, time_before <= first_start);
  } else {
    history_.clear();
  }
  if (fold_ && same_end) {
    lockstep_.swap(round_);
    lockstep_end_ = round_end;
    lockstep_duration_ = round_end - round_start;
  }
}

}  // namespace tpusim::sim
