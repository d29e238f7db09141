#pragma once
// What a sweep reports: a table on the terminal (one row per point, printed as the point finishes) and, in
// its output folder, each file written atomically:
//   sweep.csv   one row per point, columns: point, one column per varied key (named by the key, in vary
//               order), then kSweepCsvColumns
//   sweep.json  {context: {tpusim version, the sweep, its base and vary spec}, runs: [one object per point]}
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

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
// Writes sweep.csv and sweep.json into `folder` (created if needed); sweep.json goes last.
SweepPaths write_sweep_files(const std::string& folder, const Sweep& sweep,
                             const std::vector<PointResult>& results, double wall_s);

}  // namespace tpusim::workloads
