#pragma once
// What a sweep reports: a table on the terminal (one row per point, printed as the point finishes) and its
// output folder, written as one unit like a run's (topologies/support/atomic_folder.hpp):
//   sweep.csv   one row per point, columns: point, one column per varied key (named by the key, in vary
//               order), then kSweepCsvColumns
//   sweep.json  {context: {tpusim version, the sweep, its base and vary spec}, runs: [one object per point]}
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "topologies/support/atomic_folder.hpp"
#include "workloads/sweep/sweep_run.hpp"
#include "workloads/sweep/sweep_spec.hpp"

namespace tpusim::workloads {

// topology, cores, mesh_shape, layout, parameters, step_time_s, compute_s, communication_s,
// exposed_communication_s, exposed_communication_fraction, idle_s, model_flops_per_step, mfu,
// memory_per_core_bytes, hbm_per_core_bytes, fits, collective_calls, wall_s, error
extern const std::vector<std::string> kSweepCsvColumns;

std::string sweep_table_header(const Sweep& sweep);
std::string sweep_table_row(const Sweep& sweep, const SweepPoint& point, const PointResult& result);

void write_sweep_csv(std::ostream& out, const Sweep& sweep, const std::vector<PointResult>& results);
nlohmann::json sweep_json(const Sweep& sweep, const std::vector<PointResult>& results, double wall_s);

struct SweepPaths {
  std::string folder, csv, json;
};
// The names of the files in a sweep's folder: an existing folder holding only these may be replaced.
extern const std::vector<std::string> kSweepResultFiles;

// Stages the sweep's folder before any point runs (see stage_result_folder in report/result_files.hpp).
std::unique_ptr<StagedFolder> stage_sweep_folder(const std::string& folder);
// Writes sweep.csv and sweep.json into the staged folder and puts it in place.
SweepPaths write_sweep_files(StagedFolder& staged, const Sweep& sweep,
                             const std::vector<PointResult>& results, double wall_s);
// The same, staging `folder` first.
SweepPaths write_sweep_files(const std::string& folder, const Sweep& sweep,
                             const std::vector<PointResult>& results, double wall_s);

}  // namespace tpusim::workloads
