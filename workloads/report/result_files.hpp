#pragma once
// What a run leaves in its output folder, the folder written as one unit
// (topologies/support/atomic_folder.hpp: staged beside it and renamed into place, replacing an earlier run's
// folder wholesale):
//   summary.json     the context block (report_context.hpp), the resolved config, step time breakdown, FLOPs
//                    and MFU, memory, collectives
//   collectives.csv  one row per collective of the last step, columns kCollectivesCsvColumns (csv_writer.hpp)
//   trace.json       Chrome trace format (opens in Perfetto / chrome://tracing): one process per chip shown,
//                    a compute track and a collectives track each; by default one chip per class of chips,
//                    standing for the others (chrome_trace.hpp, trace_plan.hpp)
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "topologies/support/atomic_folder.hpp"
#include "workloads/config/run_config.hpp"
#include "workloads/report/chrome_trace.hpp"
#include "workloads/training_run.hpp"

namespace tpusim::workloads {

// The summary: the context block (report_context.hpp) with `inputs`, what `tpusim run` was given
// ({"config": file or null, "preset": name or null, "steps": --steps or null}; {} for a run that did not come
// from the command line), then the resolved config and the figures.
nlohmann::json run_report_json(const RunConfig& config, const RunReport& report,
                               nlohmann::json inputs = nlohmann::json::object());
void print_run_report(std::ostream& out, const RunConfig& config, const RunReport& report);

// index, op, tensor, reason, kind, reduce, mesh_axes, group_size, num_groups, elements_per_core,
// element_bytes, bytes_per_core, time_s, algbw_Bps, busbw_Bps, issued_as (collective_backend.hpp)
extern const std::vector<std::string> kCollectivesCsvColumns;
void write_collectives_csv(std::ostream& out, const RunReport& report);

struct ResultPaths {
  std::string folder, summary, collectives, trace;
};
ResultPaths result_paths(const std::string& folder);
// The names of the files in a run's folder: an existing folder holding only these may be replaced.
extern const std::vector<std::string> kRunResultFiles;

// Stages the run's folder: call it before simulating, so that a folder that cannot be written is reported
// (EnvironmentError) before the work, not after it. InputError for a folder holding other files.
std::unique_ptr<StagedFolder> stage_result_folder(const std::string& folder);
// Writes the three files into the staged folder and puts it in place: they appear together or not at all.
ResultPaths write_result_files(StagedFolder& staged, const RunConfig& config, const RunReport& report,
                               const TraceSelection& trace = {},
                               const nlohmann::json& inputs = nlohmann::json::object());
// The same, staging `folder` first.
ResultPaths write_result_files(const std::string& folder, const RunConfig& config, const RunReport& report,
                               const TraceSelection& trace = {},
                               const nlohmann::json& inputs = nlohmann::json::object());

}  // namespace tpusim::workloads
