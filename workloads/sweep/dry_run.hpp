#pragma once
// `tpusim sweep --dry-run`: what each point would do, found without simulating a step, so that a study is
// checked before it takes hours:
//   done earlier  its output folder holds a valid record of it (not a failure): a run would not repeat it
//   skipped       the study says why it does not run (a collective algorithm that does not fit its group)
//   fails         running it would stop at an error: a layout the engine rejects, found by lowering the
//                 point's program in a child process as a run would (Study::check_point)
//   does not fit  it runs, but its memory per core (the peak of live buffers, as `tpusim run` reports it)
//                 is over its HBM: its row will say fits NO
// Points dropped by the sweep's exclude: are not points; the listing says how many there were.
#include <string>
#include <vector>

#include "workloads/sweep/study.hpp"

namespace tpusim::workloads {

// One check per point, in point order; `jobs` children at once for the studies that check in a child.
std::vector<PointCheck> dry_run_checks(const Study& study, int jobs);

// "10 run, 2 skipped, 1 fails, 1 does not fit its HBM": the counts of the checks, zero counts left out.
std::string dry_run_counts(const std::vector<PointCheck>& checks);
// The note a point's listing line ends with: "" for a point that runs, else "  [skipped: why]".
std::string dry_run_note(const PointCheck& check);

}  // namespace tpusim::workloads
