#include "workloads/sweep/sweep_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"
#include "workloads/models/model_kinds.hpp"
#include "workloads/report/csv_writer.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/sweep/scaling.hpp"
#include "workloads/sweep/sweep_summary.hpp"

namespace tpusim::workloads {

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

// A point's rates, from its resolved config and its step time (as tpusim run reports them).
struct Rates {
  double tokens_per_s, examples_per_s, flops_per_s_per_core;
};
Rates rates_of(const RunConfig& c, const PointResult& r) {
  return {tokens_per_step(c.model) / r.step_time_s, double(c.model.batch) / r.step_time_s,
          r.model_flops_per_step / r.step_time_s / double(c.hardware.topology.num_cores())};
}

// A column of sweep.csv after the varied keys: the config's columns are filled for every point, the measured
// ones only for a point that ran (empty otherwise), and `error` only for one that did not.
struct SweepColumn {
  enum class Kind { config, measured, error };
  const char* name;
  Kind kind;
  nlohmann::json (*cell)(const RunConfig& c, const PointResult& r, const Rates& rates);
};

const std::vector<SweepColumn>& sweep_columns() {
  using K = SweepColumn::Kind;
  using J = nlohmann::json;
  static const std::vector<SweepColumn> columns = {
      {"topology", K::config,
       [](const RunConfig& c, const PointResult&, const Rates&) { return J(c.hardware.topology.name()); }},
      {"cores", K::config,
       [](const RunConfig& c, const PointResult&, const Rates&) {
         return J(c.hardware.topology.num_cores());
       }},
      {"mesh_shape", K::config,
       [](const RunConfig& c, const PointResult&, const Rates&) { return J(c.mesh.shape_text()); }},
      {"layout", K::config,
       [](const RunConfig& c, const PointResult&, const Rates&) { return J(c.mesh.layout_text()); }},
      {"global_batch", K::config,
       [](const RunConfig& c, const PointResult&, const Rates&) { return J(c.model.batch); }},
      {"parameters", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.parameters); }},
      {"step_time_s", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.step_time_s); }},
      {"compute_s", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.compute_s); }},
      {"communication_s", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.communication_s); }},
      {"exposed_communication_s", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.exposed_communication_s); }},
      {"exposed_communication_fraction", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) {
         return J(r.exposed_communication_fraction());
       }},
      {"idle_s", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.idle_s); }},
      {"model_flops_per_step", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.model_flops_per_step); }},
      {"mfu", K::measured, [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.mfu); }},
      {"tokens_per_s", K::measured,
       [](const RunConfig&, const PointResult&, const Rates& rates) { return J(rates.tokens_per_s); }},
      {"examples_per_s", K::measured,
       [](const RunConfig&, const PointResult&, const Rates& rates) { return J(rates.examples_per_s); }},
      {"flops_per_s_per_core", K::measured,
       [](const RunConfig&, const PointResult&, const Rates& rates) {
         return J(rates.flops_per_s_per_core);
       }},
      {"memory_per_core_bytes", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.memory_per_core_bytes); }},
      {"hbm_per_core_bytes", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.hbm_per_core_bytes); }},
      {"fits", K::measured, [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.fits); }},
      {"collective_calls", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.collective_calls); }},
      {"wall_s", K::measured,
       [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.wall_s); }},
      {"error", K::error, [](const RunConfig&, const PointResult& r, const Rates&) { return J(r.error); }}};
  return columns;
}

std::vector<std::string> sweep_column_names() {
  std::vector<std::string> names;
  for (const auto& column : sweep_columns()) names.push_back(column.name);
  return names;
}

// "12.3k", "4.56M": rates on the terminal, three significant digits.
std::string rate(double per_s) {
  const char* units[] = {"", "k", "M", "G", "T", "P"};
  std::size_t u = 0;
  while (per_s >= 1000 && u + 1 < std::size(units)) per_s /= 1000, ++u;
  return fmt::format("{:.3g}{}", per_s, units[u]);
}

}  // namespace

const std::vector<std::string> kSweepCsvColumns = sweep_column_names();

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

std::string resolved_table_header(bool scaling) {
  std::string text = "Every point as it ran: cores, mesh and global batch resolved, and its throughput";
  text += scaling
              ? ";\nspeedup and efficiency against the smallest point of its series (the points that differ "
                "only in the keys\nthat set the cores): speedup is model FLOP/s over the smallest point's, "
                "efficiency speedup / core ratio\n"
              : "\n";
  return text + fmt::format("{:>4}  {:>5}  {:<20}  {:>6}  {:>10}  {:>12}{}\n", "#", "cores", "mesh", "batch",
                            "tokens/s", "TFLOP/s/core",
                            scaling ? fmt::format("  {:<7}  {:>7}  {:>8}  {:>10}", "scaling", "against",
                                                  "speedup", "efficiency")
                                    : "");
}

std::string resolved_table_row(const nlohmann::json& run, bool scaling) {
  const auto& c = run.at("config");
  std::string text =
      fmt::format("{:>4}  {:>5}  {:<20}  {:>6}", run.value("point", 0), c.value("cores", 0),
                  c.value("mesh_shape", ""), c.contains("global_batch") ? c.at("global_batch").dump() : "");
  if (run.contains("error")) return text + "  did not run\n";
  text += fmt::format("  {:>10}  {:>12.4g}", rate(run.value("tokens_per_s", 0.0)),
                      run.value("flops_per_s_per_core", 0.0) / 1e12);
  if (scaling && run.contains("scaling")) {
    const auto& s = run.at("scaling");
    text += fmt::format("  {:<7}  {:>7}  {:>7.2f}x  {:>9.1f}%", s.value("kind", ""),
                        fmt::format("#{}", s.value("reference_point", 0)), s.value("speedup", 0.0),
                        100 * s.value("efficiency", 0.0));
  }
  return text + "\n";
}

std::vector<std::string> sweep_csv_columns_after_keys() {
  std::vector<std::string> columns = kSweepCsvColumns;
  columns.insert(columns.end(), kScalingCsvColumns.begin(), kScalingCsvColumns.end());
  return columns;
}

std::vector<std::string> sweep_csv_header(const Sweep& sweep) {
  std::vector<std::string> header = {"point"};
  for (const auto& axis : sweep.axes) header.push_back(axis.key);
  const auto columns = sweep_csv_columns_after_keys();
  header.insert(header.end(), columns.begin(), columns.end());
  return header;
}

nlohmann::json sweep_csv_cells(const SweepPoint& point, const PointResult& r) {
  nlohmann::json cells = nlohmann::json::array({point.index});
  for (const auto& value : point.values) cells.push_back(value);
  const bool ran = r.error.empty();
  const Rates rates = ran ? rates_of(point.config, r) : Rates{0, 0, 0};
  for (const auto& column : sweep_columns()) {
    const bool filled =
        column.kind == SweepColumn::Kind::config || (column.kind == SweepColumn::Kind::measured) == ran;
    cells.push_back(filled ? column.cell(point.config, r, rates) : nlohmann::json(nullptr));
  }
  return cells;
}

nlohmann::json sweep_run_json(const Sweep& sweep, const SweepPoint& point, const PointResult& r) {
  const auto& c = point.config;
  nlohmann::json values = nlohmann::json::array();
  for (std::size_t a = 0; a < sweep.axes.size() && a < point.values.size(); ++a)
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
                          {"global_batch", c.model.batch},
                          {"example_unit", example_unit(c.model.kind)},
                          {"model_kind", to_string(c.model.kind)},
                          {"numerics", to_string(c.training.numerics)},
                          {"steps", c.training.steps}}}};
  if (!r.error.empty()) {
    run["error"] = r.error;
    run["input_error"] = r.input_error;
    return run;
  }
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
  const Rates rates = rates_of(c, r);
  run["tokens_per_s"] = rates.tokens_per_s;
  run["examples_per_s"] = rates.examples_per_s;
  run["flops_per_s_per_core"] = rates.flops_per_s_per_core;
  run["memory_per_core"] = {
      {"total_bytes", r.memory_per_core_bytes}, {"hbm_bytes", r.hbm_per_core_bytes}, {"fits", r.fits}};
  run["collective_calls_per_step"] = r.collective_calls;
  run["wall_s"] = r.wall_s;
  run["peak_rss_mib"] = r.peak_rss_mib;
  return run;
}

nlohmann::json sweep_description(const Sweep& sweep) {
  nlohmann::json vary = nlohmann::json::array();
  for (const auto& axis : sweep.axes) vary.push_back({{"key", axis.key}, {"values", axis.values}});
  return {{"name", sweep.name},     {"kind", "training"},     {"description", sweep.description},
          {"source", sweep.source}, {"base", sweep.base},     {"base_source", sweep.base_source},
          {"vary", vary},           {"order", sweep.order()}, {"points", sweep.points.size()}};
}

std::vector<std::optional<ScalingFigures>> scaling_of(const Sweep& sweep,
                                                      const std::vector<PointResult>& results) {
  std::vector<ScalingInput> inputs;
  for (std::size_t i = 0; i < sweep.points.size() && i < results.size(); ++i)
    inputs.push_back(scaling_input_of_run(sweep_run_json(sweep, sweep.points[i], results[i])));
  return scaling_figures(inputs);
}

void write_sweep_csv(std::ostream& out, const Sweep& sweep, const std::vector<PointResult>& results) {
  CsvWriter csv(out, sweep_csv_header(sweep));
  const auto figures = scaling_of(sweep, results);
  for (std::size_t i = 0; i < sweep.points.size() && i < results.size(); ++i) {
    nlohmann::json cells = sweep_csv_cells(sweep.points[i], results[i]);
    nlohmann::json run;
    add_scaling(cells, run, figures[i]);
    write_csv_cells(csv, cells);
  }
}

nlohmann::json sweep_json(const Sweep& sweep, const std::vector<PointResult>& results, double wall_s,
                          nlohmann::json inputs) {
  nlohmann::json runs = nlohmann::json::array();
  const auto figures = scaling_of(sweep, results);
  for (std::size_t i = 0; i < sweep.points.size() && i < results.size(); ++i) {
    nlohmann::json cells = nlohmann::json::array();
    runs.push_back(sweep_run_json(sweep, sweep.points[i], results[i]));
    add_scaling(cells, runs.back(), figures[i]);
  }
  return with_report_context({{"sweep", sweep_description(sweep)}, {"runs", runs}, {"wall_s", wall_s}},
                             format::kSweep, "sweep", std::move(inputs));
}

}  // namespace tpusim::workloads
