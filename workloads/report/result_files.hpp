#pragma once
// What a run leaves in its output folder, each file written atomically (topologies/support/atomic_file.hpp):
//   summary.json     the resolved config, versions, step time breakdown, FLOPs and MFU, memory, collectives
//   collectives.csv  one row per collective of the last step, columns kCollectivesCsvColumns
//   trace.json       Chrome trace format (opens in Perfetto / chrome://tracing): one process per chip, a
//                    compute track and a collectives track each
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "workloads/config/run_config.hpp"
#include "workloads/training_run.hpp"

namespace tpusim::workloads {

nlohmann::json run_report_json(const RunConfig& config, const RunReport& report);
void print_run_report(std::ostream& out, const RunConfig& config, const RunReport& report);

// index, op, tensor, reason, kind, reduce, mesh_axes, group_size, num_groups, elements_per_core,
// element_bytes, bytes_per_core, time_s, algbw_Bps, busbw_Bps
extern const std::vector<std::string> kCollectivesCsvColumns;
void write_collectives_csv(std::ostream& out, const RunReport& report);
// Every chip runs the same SPMD program with the same simulated timing, so every chip's tracks hold the same
// events; max_chips limits how many chips are written (0 = all).
void write_chrome_trace(std::ostream& out, const RunConfig& config, const RunReport& report,
                        int max_chips = 0);

struct ResultPaths {
  std::string folder, summary, collectives, trace;
};
ResultPaths result_paths(const std::string& folder);
// Writes the three files into `folder` (created if needed). Each file appears whole or not at all.
ResultPaths write_result_files(const std::string& folder, const RunConfig& config, const RunReport& report,
                               int trace_max_chips = 0);

}  // namespace tpusim::workloads
