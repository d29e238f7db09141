#include "workloads/sweep/sweep_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/simulator.hpp"
#include "topologies/support/atomic_file.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::workloads {

const std::vector<std::string> kSweepCsvColumns = {"topology",
                                                   "cores",
                                                   "mesh_shape",
                                                   "layout",
                                                   "parameters",
                                                   "step_time_s",
                                                   "compute_s",
                                                   "communication_s",
                                                   "exposed_communication_s",
                                                   "exposed_communication_fraction",
                                                   "idle_s",
                                                   "model_flops_per_step",
                                                   "mfu",
                                                   "memory_per_core_bytes",
                                                   "hbm_per_core_bytes",
                                                   "fits",
                                                   "collective_calls",
                                                   "wall_s",
                                                   "error"};

namespace {

std::vector<std::size_t> value_widths(const Sweep& sweep) {
  std::vector<std::size_t> widths;
  for (const auto& axis : sweep.axes) {
    std::size_t width = axis.key.size();
    for (const auto& value : axis.values) width = std::max(width, value.size());
    widths.push_back(width);
  }
  return widths;
}

std::string point_columns(const Sweep& sweep, const std::vector<std::string>& cells,
                          const std::string& index) {
  const auto widths = value_widths(sweep);
  std::string text = fmt::format("{:>4}", index);
  for (std::size_t a = 0; a < cells.size(); ++a) text += fmt::format("  {:<{}}", cells[a], widths[a]);
  return text;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

std::string sweep_table_header(const Sweep& sweep) {
  std::vector<std::string> keys;
  for (const auto& axis : sweep.axes) keys.push_back(axis.key);
  return point_columns(sweep, keys, "#") + fmt::format("  {:>11}  {:>6}  {:>8}  {:>21}  {}\n", "step time",
                                                       "MFU", "exp.comm", "memory/core / HBM", "fits");
}

std::string sweep_table_row(const Sweep& sweep, const SweepPoint& point, const PointResult& r) {
  const std::string start = point_columns(sweep, point.values, std::to_string(point.index));
  if (!r.error.empty()) return start + "  " + (r.input_error ? "error: " : "failed: ") + r.error + "\n";
  const std::string memory = fmt::format("{} / {}", format_bytes(double(r.memory_per_core_bytes)),
                                         format_bytes(double(r.hbm_per_core_bytes)));
  return start + fmt::format("  {:>11}  {:>5.1f}%  {:>7.1f}%  {:>21}  {}\n", format_duration(r.step_time_s),
                             100 * r.mfu, 100 * r.exposed_communication_fraction(), memory,
                             r.fits ? "yes" : "NO");
}

void write_sweep_csv(std::ostream& out, const Sweep& sweep, const std::vector<PointResult>& results) {
  std::vector<std::string> header = {"point"};
  for (const auto& axis : sweep.axes) header.push_back(csv_field(axis.key));
  header.insert(header.end(), kSweepCsvColumns.begin(), kSweepCsvColumns.end());
  out << join(header, ",") << "\n";
  for (std::size_t i = 0; i < sweep.points.size() && i < results.size(); ++i) {
    const auto& point = sweep.points[i];
    const auto& c = point.config;
    const auto& r = results[i];
    std::vector<std::string> row = {std::to_string(point.index)};
    for (const auto& value : point.values) row.push_back(csv_field(value));
    row.push_back(csv_field(c.hardware.topology.name()));
    row.push_back(std::to_string(c.hardware.topology.num_cores()));
    row.push_back(csv_field(c.mesh.shape_text()));
    row.push_back(csv_field(c.mesh.layout_text()));
    if (r.error.empty()) {
      for (const std::string& cell :
           {fmt::format("{}", r.parameters), fmt::format("{}", r.step_time_s), fmt::format("{}", r.compute_s),
            fmt::format("{}", r.communication_s), fmt::format("{}", r.exposed_communication_s),
            fmt::format("{}", r.exposed_communication_fraction()), fmt::format("{}", r.idle_s),
            fmt::format("{}", r.model_flops_per_step), fmt::format("{}", r.mfu),
            fmt::format("{}", r.memory_per_core_bytes), fmt::format("{}", r.hbm_per_core_bytes),
            std::string(r.fits ? "true" : "false"), fmt::format("{}", r.collective_calls),
            fmt::format("{}", r.wall_s), std::string()}) {
        row.push_back(cell);
      }
    } else {
      // Every measured column empty: all of kSweepCsvColumns after layout, but the error itself.
      row.resize(header.size() - 1);
      row.push_back(csv_field(r.error));
    }
    out << join(row, ",") << "\n";
  }
}

nlohmann::json sweep_json(const Sweep& sweep, const std::vector<PointResult>& results, double wall_s) {
  nlohmann::json vary = nlohmann::json::array();
  for (const auto& axis : sweep.axes) vary.push_back({{"key", axis.key}, {"values", axis.values}});
  nlohmann::json runs = nlohmann::json::array();
  for (std::size_t i = 0; i < sweep.points.size() && i < results.size(); ++i) {
    const auto& point = sweep.points[i];
    const auto& c = point.config;
    const auto& r = results[i];
    nlohmann::json values = nlohmann::json::array();
    for (std::size_t a = 0; a < sweep.axes.size(); ++a)
      values.push_back({{"key", sweep.axes[a].key}, {"value", point.values[a]}});
    nlohmann::json run = {{"point", point.index},
                          {"values", values},
                          {"config",
                           {{"topology", c.hardware.topology.name()},
                            {"cores", c.hardware.topology.num_cores()},
                            {"device", c.hardware.device.name()},
                            {"mesh_shape", c.mesh.shape_text()},
                            {"mapping", c.mesh.mapping.to_string()},
                            {"layout", c.mesh.layout_text()},
                            {"model_kind", to_string(c.model.kind)},
                            {"numerics", to_string(c.training.numerics)},
                            {"steps", c.training.steps}}}};
    if (!r.error.empty()) {
      run["error"] = r.error;
      run["input_error"] = r.input_error;
    } else {
      run["mesh_mapping"] = r.mesh_mapping;
      run["parameters"] = r.parameters;
      run["step_time"] = {{"step_time_s", r.step_time_s},
                          {"compute_s", r.compute_s},
                          {"communication_s", r.communication_s},
                          {"exposed_communication_s", r.exposed_communication_s},
                          {"exposed_communication_fraction", r.exposed_communication_fraction()},
                          {"idle_s", r.idle_s}};
      run["model_flops_per_step"] = r.model_flops_per_step;
      run["mfu"] = r.mfu;
      run["memory_per_core"] = {
          {"total_bytes", r.memory_per_core_bytes}, {"hbm_bytes", r.hbm_per_core_bytes}, {"fits", r.fits}};
      run["collective_calls_per_step"] = r.collective_calls;
      run["wall_s"] = r.wall_s;
      run["peak_rss_mib"] = r.peak_rss_mib;
    }
    runs.push_back(run);
  }
  return {{"context",
           {{"tpusim_version", TPUSIM_VERSION},
            {"simgrid_version", sim::simgrid_version()},
            {"format", "tpusim.sweep.v1"},
            {"name", sweep.name},
            {"description", sweep.description},
            {"source", sweep.source},
            {"base", sweep.base},
            {"base_source", sweep.base_source},
            {"vary", vary},
            {"order", "cartesian product, the first key varying slowest"},
            {"points", sweep.points.size()}}},
          {"runs", runs},
          {"wall_s", wall_s}};
}

const std::vector<std::string> kSweepResultFiles = {"sweep.csv", "sweep.json"};

std::unique_ptr<StagedFolder> stage_sweep_folder(const std::string& folder) {
  return std::make_unique<StagedFolder>(folder, kSweepResultFiles);
}

SweepPaths write_sweep_files(StagedFolder& staged, const Sweep& sweep,
                             const std::vector<PointResult>& results, double wall_s) {
  write_file_atomically(staged.staged_path("sweep.csv"),
                        [&](std::ostream& out) { write_sweep_csv(out, sweep, results); });
  write_file_atomically(staged.staged_path("sweep.json"), sweep_json(sweep, results, wall_s).dump(2) + "\n");
  staged.commit();
  const std::string& folder = staged.folder();
  return SweepPaths{folder, folder + "/sweep.csv", folder + "/sweep.json"};
}

SweepPaths write_sweep_files(const std::string& folder, const Sweep& sweep,
                             const std::vector<PointResult>& results, double wall_s) {
  StagedFolder staged(folder, kSweepResultFiles);
  return write_sweep_files(staged, sweep, results, wall_s);
}

}  // namespace tpusim::workloads
