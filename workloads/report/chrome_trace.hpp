#pragma once
// A run's trace.json: the Chrome trace format (opens in Perfetto, https://ui.perfetto.dev, or
// chrome://tracing). One process per chip the trace shows (trace_plan.hpp), its id the chip's number, with a
// compute track and a track per communication stream; otherData says which chips each process stands for,
// which chips have no tracks of their own, and why one chip's tracks show the step of the chips it stands
// for.
#include <ostream>

#include "workloads/config/run_config.hpp"
#include "workloads/report/trace_selection.hpp"
#include "workloads/training_run.hpp"

namespace tpusim::workloads {

void write_chrome_trace(std::ostream& out, const RunConfig& config, const RunReport& report,
                        const TraceSelection& selection = {});

}  // namespace tpusim::workloads
