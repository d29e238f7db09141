#pragma once
// Places a lowered program's steps on the timeline of one core (overlap_policy.hpp says which streams
// exist). Compute runs the local steps in program order; a collective starts as soon as its input is ready
// and its stream is free, earliest first; events are placed in order of start time.
//
// Durations of collectives come from their runs alone. Under OverlapPolicy::concurrent several may be in
// flight at once (along disjoint mesh dimensions). Those whose links are disjoint keep their times alone:
// fair sharing is decided link by link. From the instant one starts that shares a link with another in
// flight, every collective in flight runs on one simulated clock (ConcurrentCollectives), replayed from its
// start, where they contend, until none is in flight. Placing events in start order makes this exact: nothing
// placed before a start can depend on the end of a collective still in flight.
#include <cstddef>
#include <utility>
#include <vector>

#include "mesh_tf/overlap_policy.hpp"
#include "mesh_tf/program.hpp"
#include "mesh_tf/timeline.hpp"

namespace tpusim::mtf {

// Collectives of a step running together on one clock, in the step's time.
class ConcurrentCollectives {
 public:
  virtual ~ConcurrentCollectives() = default;
  // Starts step `step`'s collective at `start_s`, no earlier than the last start or advance.
  virtual void start(std::size_t step, double start_s) = 0;
  // Runs until `until_s` (infinity: no limit) or until started collectives end, whichever is first; returns
  // (step, end_s) of those that ended, empty when none ended before until_s.
  virtual std::vector<std::pair<std::size_t, double>> advance(double until_s) = 0;
  // Whether the collectives of two steps cross a common link.
  virtual bool share_links(std::size_t step, std::size_t other_step) = 0;
};

// `durations` holds every step's time, a collective's alone. `concurrent` is used only under
// OverlapPolicy::concurrent; without it collectives keep their times alone.
Timeline schedule_step(const Program& program, const std::vector<double>& durations, OverlapPolicy overlap,
                       ConcurrentCollectives* concurrent = nullptr);

}  // namespace tpusim::mtf
