#pragma once
// The simulated timeline of one step. Every core runs the same SPMD program on equal slices, so one timeline
// describes every core: a compute stream and communication streams (one, or one per mesh dimension),
// overlapped by dependencies (step_schedule.hpp).
#include <string>
#include <vector>

#include "mesh_tf/device_model.hpp"

namespace tpusim::mtf {

struct TimelineEntry {
  int step = 0;        // index in the lowered program
  int op = -1;         // graph op
  std::string label;   // "einsum_3" or "allreduce[cols] einsum_3"
  std::string family;  // the op's kind ("einsum", "unary"), for a collective its kind ("allreduce")
  bool is_comm = false;
  int stream = 0;  // 0 compute; from 1 the communication streams (overlap_policy.hpp)
  double start_s = 0, end_s = 0;
  // Comm only: time not overlapped by compute; where collectives overlap one another, its even share of
  // that time with the others in flight, so that the entries add up to Timeline::exposed_comm_s.
  double exposed_s = 0;
  // Compute only: the op's work, the per-op overhead in its duration, what set the rest, and the entry of
  // the collective whose result it started late for (-1 when it did not wait for one).
  double flops = 0, hbm_bytes = 0, overhead_s = 0;
  ComputeBound bound = ComputeBound::flop_rate;
  int waited_for = -1;
};

struct Timeline {
  std::vector<TimelineEntry> entries;
  double step_time_s = 0;
  double compute_s = 0;       // busy time of the compute stream
  double comm_s = 0;          // time some collective was in flight (their union)
  double exposed_comm_s = 0;  // time some collective was in flight and no compute ran
  double idle_s = 0;          // neither compute nor exposed communication
  std::string summary(int max_rows = 40) const;
};

// Fills the totals, idle time and per-entry exposed communication from the entries' start/end times.
void finalize_timeline(Timeline& timeline);

}  // namespace tpusim::mtf
