#pragma once
// Which chips a run's trace.json shows (tpusim run --trace-chips). Every chip of a simulated pod runs the
// same SPMD timeline, so writing each repeats it hundreds of times (84 MB on the default 256-chip pod): the
// default writes one track set per class of chips (trace_plan.hpp), which loses nothing the simulation tells
// apart.
#include <string>

namespace tpusim::workloads {

enum class TraceChipsMode {
  classes,  // one chip's tracks per class of chips the simulation tells apart (the default)
  all,      // every chip's tracks
  first,    // the first `first_chips` chips' tracks
};

struct TraceSelection {
  TraceChipsMode mode = TraceChipsMode::classes;
  int first_chips = 0;  // mode first only, >= 1
};

// "classes", "all", or a whole number N from 1 to topo::kMaxChips for the first N chips; 0 is "all", what
// --trace-chips 0 has always meant. InputError naming the valid values otherwise (without the option's name,
// which the command line puts before it).
TraceSelection parse_trace_selection(const std::string& text);

// "classes", "all" or "first 4", as the trace's metadata says it.
std::string to_string(const TraceSelection& selection);

}  // namespace tpusim::workloads
