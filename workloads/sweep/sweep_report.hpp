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

#include "workloads/sweep/scaling.hpp"
#include "workloads/sweep/sweep_run.hpp"
#include "workloads/sweep/sweep_spec.hpp"

namespace tpusim::workloads {

// A point's own columns, named in one table (sweep_report.cpp): the config's as resolved (topology, cores, mesh,
// layout, global batch: never batch:* or from_mapping), then the measured figures, wall_s and error.
// sweep.csv follows them with scaling, speedup and efficiency (scaling.hpp), which depend on other points
// and so are added as the summary is assembled, not kept in a point's record.
extern const std::vector<std::string> kSweepCsvColumns;

std::string sweep_table_header(const Sweep& sweep);
std::string sweep_table_row(const Sweep& sweep, const SweepPoint& point, const PointResult& result);
// The terminal's second table, printed once every point has its row (the first streams as points finish,
// before the scaling figures exist): from each sweep.json run, the resolved cores, mesh and global batch,
// tokens/s and FLOP/s per core, and with `scaling` the run's scaling figures (scaling.hpp).
std::string resolved_table_header(bool scaling);
std::string resolved_table_row(const nlohmann::json& run, bool scaling);

// kSweepCsvColumns, then kScalingCsvColumns: sweep.csv's columns after the point and the varied keys.
std::vector<std::string> sweep_csv_columns_after_keys();
// "point", the varied keys, kSweepCsvColumns, then kScalingCsvColumns.
std::vector<std::string> sweep_csv_header(const Sweep& sweep);
// A row of sweep.csv as typed cells (sweep_summary.hpp's write_csv_cells writes them), but its scaling cells.
nlohmann::json sweep_csv_cells(const SweepPoint& point, const PointResult& result);
// A run of sweep.json's "runs", and its "sweep" block.
nlohmann::json sweep_run_json(const Sweep& sweep, const SweepPoint& point, const PointResult& result);
nlohmann::json sweep_description(const Sweep& sweep);

// The scaling figures of points run in memory (scaling.hpp).
std::vector<std::optional<ScalingFigures>> scaling_of(const Sweep& sweep,
                                                      const std::vector<PointResult>& results);

// Whole documents of points run in memory (run_sweep): the same rows.
void write_sweep_csv(std::ostream& out, const Sweep& sweep, const std::vector<PointResult>& results);
// `inputs`: what `tpusim sweep` was given ({"sweep": file or null, "preset": name or null}), for the context
// block; {} when the sweep did not come from the command line.
nlohmann::json sweep_json(const Sweep& sweep, const std::vector<PointResult>& results, double wall_s,
                          nlohmann::json inputs = nlohmann::json::object());

}  // namespace tpusim::workloads
