#include "workloads/sweep/training_study.hpp"

#include <fmt/format.h>

#include "topologies/support/units.hpp"
#include "workloads/config/resolved_config.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/sweep/content_hash.hpp"
#include "workloads/sweep/dry_run.hpp"
#include "workloads/sweep/sweep_report.hpp"

namespace tpusim::workloads {

std::string training_point_hash(const RunConfig& config) {
  nlohmann::json resolved = resolved_config(config);
  for (const char* key : {"name", "description", "source"}) resolved.erase(key);
  if (resolved.contains("training")) resolved["training"].erase("output");
  return ContentHash().add("tpusim " TPUSIM_VERSION).add("training").add(resolved.dump()).hex();
}

PointResult point_result_of(const PointOutcome& outcome) {
  PointResult result;
  if (outcome.ok()) {
    result = parse_point_summary(outcome.result);
  } else {
    result.error = outcome.error;
    result.input_error = outcome.status == "input_error";
  }
  result.wall_s = outcome.wall_s;
  result.peak_rss_mib = outcome.peak_rss_mib;
  return result;
}

TrainingStudy::TrainingStudy(Sweep sweep) : sweep_(std::move(sweep)) {
  for (const auto& point : sweep_.points) hashes_.push_back(training_point_hash(point.config));
}

std::vector<std::string> TrainingStudy::keys() const {
  std::vector<std::string> keys;
  for (const auto& axis : sweep_.axes) keys.push_back(axis.key);
  return keys;
}

std::string TrainingStudy::run_point(std::size_t point) const {
  return point_summary_json(run_training(sweep_.points[point].config));
}

std::string TrainingStudy::check_point(std::size_t point) const {
  // The program built and lowered as a run would (a layout the engine rejects throws InputError here), and
  // its memory per core taken before any step.
  RunOptions lowering_only;
  lowering_only.lower_only = true;
  const MemoryReport memory = run_training(sweep_.points[point].config, lowering_only).memory;
  if (memory.fits()) return "";
  return fmt::format("does not fit its HBM: {} per core of {}", format_bytes(double(memory.total_bytes)),
                     format_bytes(double(memory.hbm_bytes)));
}

std::vector<std::string> TrainingStudy::csv_header() const { return sweep_csv_header(sweep_); }

nlohmann::json TrainingStudy::csv_cells(std::size_t point, const PointOutcome& outcome) const {
  return sweep_csv_cells(sweep_.points[point], point_result_of(outcome));
}

nlohmann::json TrainingStudy::run_json(std::size_t point, const PointOutcome& outcome) const {
  return sweep_run_json(sweep_, sweep_.points[point], point_result_of(outcome));
}

nlohmann::json TrainingStudy::description() const { return sweep_description(sweep_); }

const char* TrainingStudy::document_format() const { return format::kSweep; }

std::string TrainingStudy::banner() const {
  return fmt::format("tpusim sweep {}: {} points, base {}{}\n", sweep_.name, sweep_.points.size(),
                     sweep_.base, sweep_.description.empty() ? "" : " (" + sweep_.description + ")");
}

std::string TrainingStudy::table_header() const { return sweep_table_header(sweep_); }

std::string TrainingStudy::table_row(std::size_t point, const PointOutcome& outcome) const {
  return sweep_table_row(sweep_, sweep_.points[point], point_result_of(outcome));
}

std::string TrainingStudy::listing(const std::vector<PointCheck>& checks) const {
  std::string text = fmt::format(
      "sweep {}: {} points of {} (base {}){}{}\n", sweep_.name, sweep_.points.size(), sweep_.source,
      sweep_.base, checks.empty() ? "" : ": " + dry_run_counts(checks),
      sweep_.excluded_points == 0 ? "" : fmt::format("; {} more dropped by exclude", sweep_.excluded_points));
  for (const auto& point : sweep_.points) {
    const auto& c = point.config;
    text += fmt::format("{:>4}  {}  -> {} ({} cores), mesh {}, layout {}{}\n", point.index,
                        point.describe(sweep_.axes), c.hardware.topology.name(),
                        c.hardware.topology.num_cores(), c.mesh.shape_text(), c.mesh.layout_text(),
                        std::size_t(point.index) < checks.size() ? dry_run_note(checks[point.index]) : "");
  }
  return text;
}

}  // namespace tpusim::workloads
