#include "mesh_tf/step_schedule.hpp"

#include <algorithm>
#include <limits>

#include "topologies/support/check.hpp"

namespace tpusim::mtf {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// The streams ("lanes") each step occupies: lane 0 is compute; collectives take lane 1, or share lane 0 when
// nothing overlaps, or, when collectives on disjoint mesh dimensions may run at once, one lane per mesh
// dimension (1 + its index), all of those they span.
std::vector<std::vector<int>> lanes_of_steps(const Program& program, OverlapPolicy overlap) {
  int widest = 0;
  for (const auto& step : program.steps) {
    for (const int d : step.mesh_dims) widest = std::max(widest, d + 1);
  }
  std::vector<std::vector<int>> lanes;
  for (const auto& step : program.steps) {
    if (!step.is_comm || overlap == OverlapPolicy::none) {
      lanes.push_back({0});
    } else if (overlap == OverlapPolicy::dependencies || step.mesh_dims.empty()) {
      // A collective along no mesh dimension (none is lowered so) would take every lane, to be safe.
      std::vector<int> all{1};
      if (overlap == OverlapPolicy::concurrent) {
        for (int d = 1; d < widest; ++d) all.push_back(1 + d);
      }
      lanes.push_back(all);
    } else {
      std::vector<int> own;
      for (const int d : step.mesh_dims) own.push_back(1 + d);
      std::sort(own.begin(), own.end());
      lanes.push_back(own);
    }
  }
  return lanes;
}

class Scheduler {
 public:
  Scheduler(const Program& program, const std::vector<double>& durations, OverlapPolicy overlap,
            ConcurrentCollectives* concurrent)
      : program_(program),
        durations_(durations),
        overlap_(overlap),
        concurrent_(overlap == OverlapPolicy::concurrent ? concurrent : nullptr),
        n_(program.steps.size()),
        lanes_(lanes_of_steps(program, overlap)),
        ready_(program.values.size(), 0.0),
        done_value_(program.values.size(), true),
        scheduled_(n_, false) {
    int lane_count = 1;
    for (const auto& lanes : lanes_) lane_count = std::max(lane_count, lanes.back() + 1);
    free_.assign(lane_count, 0.0);
    for (const auto& step : program.steps) done_value_[step.output] = false;
    for (std::size_t i = 0; i < n_; ++i) {
      if (program.steps[i].is_comm) comm_steps_.push_back(i);
    }
    timeline_.entries.resize(n_);
    last_comm_ = n_;
  }

  Timeline run() {
    std::size_t placed = 0;
    while (placed < n_ || !in_flight_.empty()) {
      while (next_compute_ < n_ && (program_.steps[next_compute_].is_comm || scheduled_[next_compute_]))
        ++next_compute_;
      // No "infinitely late" sentinel: any finite time, however large, must still order correctly.
      double compute_start = 0, comm_start = 0, at = 0;
      const bool compute_ready = next_compute_ < n_ && inputs_ready(program_.steps[next_compute_], at);
      if (compute_ready) compute_start = std::max(lane_free(next_compute_), at);
      std::size_t best_comm = n_;
      for (const std::size_t c : comm_steps_) {
        if (scheduled_[c] || !inputs_ready(program_.steps[c], at)) continue;
        const double start = std::max(lane_free(c), at);
        if (start == kNever) continue;  // its stream is held by a collective in flight
        if (best_comm == n_ || start < comm_start) {
          comm_start = start;
          best_comm = c;
        }
      }
      const bool take_comm = best_comm < n_ && (!compute_ready || comm_start < compute_start);
      if (!take_comm && !compute_ready) {
        // Everything left waits for collectives in flight.
        TPUSIM_CHECK(!in_flight_.empty());
        end_concurrent(concurrent_->advance(kNever));
        continue;
      }
      const double start = take_comm ? comm_start : compute_start;
      // A collective running alone whose end is not after this start has ended as it would alone.
      alone_.erase(std::remove_if(alone_.begin(), alone_.end(),
                                  [&](std::size_t a) { return timeline_.entries[a].end_s <= start; }),
                   alone_.end());
      if (!in_flight_.empty()) {
        auto ended = concurrent_->advance(start);
        if (!ended.empty()) {
          end_concurrent(ended);  // what can start, and when, may have changed
          continue;
        }
      }
      const std::size_t i = take_comm ? best_comm : next_compute_;
      if (take_comm && in_flight_.empty() && shares_links_with_alone(i)) {
        // From now on every collective in flight runs on one clock, each from its start; this one joins
        // them when the loop comes back to it.
        replay_alone();
        continue;
      }
      place(i, start);
      ++placed;
    }
    return std::move(timeline_);
  }

 private:
  bool inputs_ready(const Step& step, double& at) const {
    at = 0;
    for (const int in : step.inputs) {
      if (!done_value_[in]) return false;
      at = std::max(at, ready_[in]);
    }
    return true;
  }

  double lane_free(std::size_t step) const {
    double free = 0;
    for (const int lane : lanes_[step]) free = std::max(free, free_[lane]);
    return free;
  }

  bool shares_links_with_alone(std::size_t step) const {
    return concurrent_ != nullptr && std::any_of(alone_.begin(), alone_.end(), [&](std::size_t a) {
             return concurrent_->share_links(a, step);
           });
  }

  void replay_alone() {
    std::vector<std::size_t> replayed = std::move(alone_);
    alone_.clear();
    std::sort(replayed.begin(), replayed.end(), [&](std::size_t a, std::size_t b) {
      return timeline_.entries[a].start_s < timeline_.entries[b].start_s;
    });
    for (const std::size_t a : replayed) {
      const double start = timeline_.entries[a].start_s;
      // They started alone on disjoint links, so none ends before the last starts but by rounding.
      if (!in_flight_.empty()) end_concurrent(concurrent_->advance(start));
      unfinish(a);
      concurrent_->start(a, start);
    }
  }

  void place(std::size_t i, double start) {
    const Step& step = program_.steps[i];
    TimelineEntry& entry = timeline_.entries[i];
    entry.waited_for = -1;
    if (!step.is_comm && start > compute_end_) {
      // The compute stream idled: for an input a collective produced (compute ones are done), or, when the
      // streams are one, behind the collective that held the stream.
      for (const int in : step.inputs) {
        const int producer = program_.values[in].producer_step;
        if (producer >= 0 && program_.steps[producer].is_comm && ready_[in] == start)
          entry.waited_for = producer;
      }
      if (entry.waited_for < 0 && last_comm_ < n_ && timeline_.entries[last_comm_].end_s == start)
        entry.waited_for = static_cast<int>(last_comm_);
    }
    scheduled_[i] = true;
    entry.step = static_cast<int>(i);
    entry.op = step.op;
    entry.label = step.label;
    entry.is_comm = step.is_comm;
    entry.stream = step.is_comm ? lanes_[i].front() == 0 ? 1 : lanes_[i].front() : 0;
    entry.start_s = start;
    if (!step.is_comm) {
      entry.flops = step.flops;
      entry.hbm_bytes = step.hbm_bytes;
      entry.overhead_s = step.overhead_s;
      entry.bound = step.bound;
      compute_end_ = start + durations_[i];
    } else {
      last_comm_ = i;
    }
    if (step.is_comm && !in_flight_.empty()) {
      concurrent_->start(i, start);
      unfinish(i);
      return;
    }
    finish(i, start + durations_[i]);
    if (step.is_comm && concurrent_ != nullptr) alone_.push_back(i);
  }

  void finish(std::size_t i, double end) {
    TimelineEntry& entry = timeline_.entries[i];
    entry.end_s = end;
    const Step& step = program_.steps[i];
    ready_[step.output] = end;
    done_value_[step.output] = true;
    for (const int lane : lanes_[i]) free_[lane] = end;
    if (overlap_ == OverlapPolicy::none) std::fill(free_.begin(), free_.end(), end);
  }

  // A collective whose end is not known yet: in flight on the concurrent clock.
  void unfinish(std::size_t i) {
    done_value_[program_.steps[i].output] = false;
    for (const int lane : lanes_[i]) free_[lane] = kNever;
    in_flight_.push_back(i);
  }

  void end_concurrent(const std::vector<std::pair<std::size_t, double>>& ended) {
    for (const auto& [step, end] : ended) {
      auto it = std::find(in_flight_.begin(), in_flight_.end(), step);
      TPUSIM_CHECK(it != in_flight_.end());
      in_flight_.erase(it);
      finish(step, end);
    }
  }

  const Program& program_;
  const std::vector<double>& durations_;
  const OverlapPolicy overlap_;
  ConcurrentCollectives* const concurrent_;
  const std::size_t n_;
  const std::vector<std::vector<int>> lanes_;
  std::vector<double> ready_;
  std::vector<bool> done_value_, scheduled_;
  std::vector<double> free_;  // per lane
  std::vector<std::size_t> comm_steps_;
  std::size_t next_compute_ = 0;
  double compute_end_ = 0;  // of the last compute step placed
  std::size_t last_comm_;   // the last collective placed (n_ before any)
  // Collectives placed with their times alone whose ends are not yet behind every start.
  std::vector<std::size_t> alone_;
  std::vector<std::size_t> in_flight_;  // collectives on the concurrent clock
  Timeline timeline_;
};

}  // namespace

Timeline schedule_step(const Program& program, const std::vector<double>& durations, OverlapPolicy overlap,
                       ConcurrentCollectives* concurrent) {
  return Scheduler(program, durations, overlap, concurrent).run();
}

}  // namespace tpusim::mtf
