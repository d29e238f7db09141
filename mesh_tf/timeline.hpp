#pragma once
// The simulated timeline of one step. Every core runs the same SPMD program on equal slices, so one timeline
// describes every core: a compute stream and one serial communication stream, overlapped by dependencies.
#include <string>
#include <vector>

namespace tpusim::mtf {

struct TimelineEntry {
  int step = 0;       // index in the lowered program
  int op = -1;        // graph op
  std::string label;  // "einsum_3" or "allreduce[cols] einsum_3"
  bool is_comm = false;
  double start_s = 0, end_s = 0;
  double exposed_s = 0;  // comm only: time not overlapped by compute
};

struct Timeline {
  std::vector<TimelineEntry> entries;
  double step_time_s = 0;
  double compute_s = 0;       // busy time of the compute stream
  double comm_s = 0;          // busy time of the communication stream
  double exposed_comm_s = 0;  // communication not hidden behind compute
  std::string summary(int max_rows = 40) const;
  void write_chrome_trace(const std::string& path) const;  // atomically (temp file then rename)
};

// Fills the totals and per-entry exposed communication from the entries' start/end times.
void finalize_timeline(Timeline& timeline);

}  // namespace tpusim::mtf
