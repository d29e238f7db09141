#pragma once
// Which processes a run's trace.json holds and which chips each stands for (trace_selection.hpp chooses).
// The simulation gives every chip the same timeline: the program is SPMD, a collective is timed until its
// last member finishes (sim/collective.hpp), and a straggler sets every core's pace (training_run.cpp). So
// one chip's tracks show the step of any chip, and the classes the default writes are the chips the faults
// set apart: the healthy chips as one, and one per kind of fault (a straggler's factor, a down link, a slow
// link), each shown by its lowest chip and listing the chips it stands for.
#include <string>
#include <vector>

#include "topologies/topology.hpp"
#include "workloads/report/trace_selection.hpp"

namespace tpusim::workloads {

// One process of the trace: the tracks of chip `chip` (its process id), standing for `chips`.
struct TraceProcess {
  int chip = 0;
  std::vector<int> chips;  // ascending, `chip` first; just `chip` when it stands for itself
  std::string faults;      // ChipFaults::kind of its chips: "healthy", "straggler 1.5x slower", ...
};

struct TracePlan {
  TraceSelection selection;
  int pod_chips = 0;
  std::vector<TraceProcess> processes;  // healthy class first, then by lowest chip
  std::vector<int> left_out;            // chips without a process of their own, ascending

  // What the trace holds, for the line `tpusim run` prints after "trace.json": ": one track set for all 256
  // chips, ...", or "" when it holds every chip.
  std::string summary() const;
};

TracePlan plan_trace(const topo::Topology& topology, const TraceSelection& selection);

// "0-51, 53-255": ascending chip numbers as ranges.
std::string chip_ranges(const std::vector<int>& chips);

}  // namespace tpusim::workloads
