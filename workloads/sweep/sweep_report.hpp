#pragma once
// The rows of a training sweep (sweep_spec.hpp): a table on the terminal, one row per point, and the rows of
// sweep.csv and sweep.json in its output folder (assembled from the points' records, study_runner.hpp):
//   sweep.csv   one row per point, columns: point, one column per varied key (named by the key, in vary
//               order), then kSweepCsvColumns
//   sweep.json  {context: report/report_context.hpp, sweep: {the sweep, its base and vary spec},
//               runs: [one object per point], wall_s}
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

// "point", the varied keys, then kSweepCsvColumns.
std::vector<std::string> sweep_csv_header(const Sweep& sweep);
// A row of sweep.csv as typed cells (sweep_summary.hpp's write_csv_cells writes them).
nlohmann::json sweep_csv_cells(const SweepPoint& point, const PointResult& result);
// A run of sweep.json's "runs", and its "sweep" block.
nlohmann::json sweep_run_json(const Sweep& sweep, const SweepPoint& point, const PointResult& result);
nlohmann::json sweep_description(const Sweep& sweep);

// Whole documents of points run in memory (run_sweep): the same rows.
void write_sweep_csv(std::ostream& out, const Sweep& sweep, const std::vector<PointResult>& results);
// `inputs`: what `tpusim sweep` was given ({"sweep": file or null, "preset": name or null}), for the context
// block; {} when the sweep did not come from the command line.
nlohmann::json sweep_json(const Sweep& sweep, const std::vector<PointResult>& results, double wall_s,
                          nlohmann::json inputs = nlohmann::json::object());

}  // namespace tpusim::workloads
