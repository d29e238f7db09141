#include "workloads/fidelity/fidelity_study.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/units.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/report/step_explanation.hpp"
#include "workloads/sweep/content_hash.hpp"
#include "workloads/sweep/training_study.hpp"

namespace tpusim::workloads {
namespace {

const std::vector<std::string> kFidelityCsvColumns = {"point",
                                                      "measurement",
                                                      "family",
                                                      "software",
                                                      "reliability",
                                                      "topology",
                                                      "cores",
                                                      "device",
                                                      "measured_step_s",
                                                      "predicted_step_s",
                                                      "relative_error",
                                                      "measured_mfu",
                                                      "predicted_mfu",
                                                      "model_flops_per_step",
                                                      "compute_s",
                                                      "exposed_communication_s",
                                                      "memory_per_core_bytes",
                                                      "hbm_per_core_bytes",
                                                      "fits",
                                                      "wall_s",
                                                      "failure"};

std::size_t id_width(const std::vector<TrainingMeasurement>& measurements) {
  std::size_t width = std::string("measurement").size();
  for (const auto& m : measurements) width = std::max(width, m.id.size());
  return width;
}

}  // namespace

FidelityStudy::FidelityStudy(std::string name, std::vector<TrainingMeasurement> measurements,
                             std::string output_dir)
    : name_(std::move(name)), measurements_(std::move(measurements)), output_dir_(std::move(output_dir)) {
  for (const auto& m : measurements_) {
    // The row depends on the measured figure as well as on the simulated config.
    hashes_.push_back(ContentHash()
                          .add(training_point_hash(m.config))
                          .add(m.id)
                          .add(m.family)
                          .add(fmt::format("{}/{}", m.step_s.value_or(0), m.flops_per_s.value_or(0)))
                          .hex());
  }
}

namespace {

// The step split as calibration.hpp models it, from the explanation of the timeline.
StepFeatures step_features(const RunReport& report, double peak_flops) {
  StepFeatures features;
  for (const auto& share : explain_step(report.timeline, peak_flops).by_bound) {
    if (share.name == mtf::to_string(mtf::ComputeBound::matrix_unit)) {
      features.matrix_s += share.time_s;
    } else if (share.name == mtf::to_string(mtf::ComputeBound::hbm_bandwidth)) {
      features.hbm_s += share.time_s;
    } else {
      features.other_s += share.time_s;
    }
  }
  for (const auto& entry : report.timeline.entries) {
    if (!entry.is_comm && entry.end_s > entry.start_s) features.kernels += 1;
  }
  return features;
}

}  // namespace

std::string FidelityStudy::run_point(std::size_t point) const {
  const RunConfig& config = measurements_[point].config;
  const RunReport report = run_training(config);
  nlohmann::json summary = record_json(point_summary(report), point_summary_fields());
  const StepFeatures f = step_features(report, config.hardware.device.peak_flops());
  summary["features"] = {
      {"matrix_s", f.matrix_s}, {"hbm_s", f.hbm_s}, {"other_s", f.other_s}, {"kernels", f.kernels}};
  return summary.dump();
}

FidelityRow FidelityStudy::row(std::size_t point, const PointOutcome& outcome) const {
  StepFeatures features;
  if (outcome.ok() && outcome.result.contains("features")) {
    const auto& f = outcome.result.at("features");
    features = {f.at("matrix_s").get<double>(), f.at("hbm_s").get<double>(), f.at("other_s").get<double>(),
                f.at("kernels").get<double>()};
  }
  return fidelity_row(measurements_[point], point_result_of(outcome), features);
}

std::vector<std::string> FidelityStudy::csv_header() const { return kFidelityCsvColumns; }

nlohmann::json FidelityStudy::csv_cells(std::size_t point, const PointOutcome& outcome) const {
  const FidelityRow r = row(point, outcome);
  const TrainingMeasurement& m = *r.measurement;
  const RunConfig& c = m.config;
  nlohmann::json cells = {point,
                          m.id,
                          m.family,
                          m.software,
                          m.reliability,
                          c.hardware.topology.name(),
                          c.hardware.topology.num_cores(),
                          c.hardware.device.name()};
  if (!r.ok()) {
    for (std::size_t i = cells.size(); i + 1 < kFidelityCsvColumns.size(); ++i) cells.push_back(nullptr);
    cells.push_back(r.predicted.error);
    return cells;
  }
  const PointResult& p = r.predicted;
  for (nlohmann::json cell :
       {nlohmann::json(r.measured_step_s), nlohmann::json(p.step_time_s), nlohmann::json(r.error()),
        nlohmann::json(r.measured_mfu), nlohmann::json(p.mfu), nlohmann::json(p.model_flops_per_step),
        nlohmann::json(p.compute_s), nlohmann::json(p.exposed_communication_s),
        nlohmann::json(p.memory_per_core_bytes), nlohmann::json(p.hbm_per_core_bytes), nlohmann::json(p.fits),
        nlohmann::json(p.wall_s), nlohmann::json(nullptr)})
    cells.push_back(std::move(cell));
  return cells;
}

nlohmann::json FidelityStudy::run_json(std::size_t point, const PointOutcome& outcome) const {
  const FidelityRow r = row(point, outcome);
  const TrainingMeasurement& m = *r.measurement;
  nlohmann::json run = {{"point", point},
                        {"measurement",
                         {{"id", m.id},
                          {"family", m.family},
                          {"source", m.source},
                          {"software", m.software},
                          {"reliability", m.reliability},
                          {"step_s", m.step_s ? nlohmann::json(*m.step_s) : nullptr},
                          {"flops_per_s", m.flops_per_s ? nlohmann::json(*m.flops_per_s) : nullptr},
                          {"file", m.file}}},
                        {"config",
                         {{"topology", m.config.hardware.topology.name()},
                          {"cores", m.config.hardware.topology.num_cores()},
                          {"device", m.config.hardware.device.name()},
                          {"mesh_shape", m.config.mesh.shape_text()},
                          {"layout", m.config.mesh.layout_text()},
                          {"model_kind", to_string(m.config.model.kind)}}}};
  if (!r.ok()) {
    run["error"] = r.predicted.error;
    run["input_error"] = r.predicted.input_error;
    return run;
  }
  const PointResult& p = r.predicted;
  run["measured_step_s"] = r.measured_step_s;
  run["predicted_step_s"] = p.step_time_s;
  run["relative_error"] = r.error();
  run["measured_mfu"] = r.measured_mfu;
  run["predicted_mfu"] = p.mfu;
  run["model_flops_per_step"] = p.model_flops_per_step;
  run["step_time"] = {{"compute_s", p.compute_s},
                      {"communication_s", p.communication_s},
                      {"exposed_communication_s", p.exposed_communication_s},
                      {"idle_s", p.idle_s}};
  run["memory_per_core"] = {
      {"total_bytes", p.memory_per_core_bytes}, {"hbm_bytes", p.hbm_per_core_bytes}, {"fits", p.fits}};
  run["wall_s"] = p.wall_s;
  return run;
}

nlohmann::json FidelityStudy::description() const {
  return {{"name", name_}, {"kind", "fidelity"}, {"points", measurements_.size()}};
}

const char* FidelityStudy::document_format() const { return format::kFidelity; }

std::string FidelityStudy::banner() const {
  return fmt::format("tpusim fidelity {}: {} measurements against tpusim's predictions\n", name_,
                     measurements_.size());
}

std::string FidelityStudy::table_header() const {
  return fmt::format("{:>3}  {:<{}}  {:>5}  {:>10}  {:>10}  {:>7}  {:>6}  {:>6}  {}\n", "#", "measurement",
                     id_width(measurements_), "cores", "measured", "predicted", "error", "MFU", "meas.",
                     "fits");
}

std::string FidelityStudy::table_row(std::size_t point, const PointOutcome& outcome) const {
  const FidelityRow r = row(point, outcome);
  const std::string start =
      fmt::format("{:>3}  {:<{}}  {:>5}", point, r.measurement->id, id_width(measurements_),
                  r.measurement->config.hardware.topology.num_cores());
  if (!r.ok())
    return start + "  " + (r.predicted.input_error ? "error: " : "failed: ") + r.predicted.error + "\n";
  return start + fmt::format("  {:>10}  {:>10}  {:>+6.1f}%  {:>5.1f}%  {:>5.1f}%  {}\n",
                             format_duration(r.measured_step_s), format_duration(r.predicted.step_time_s),
                             100 * r.error(), 100 * r.predicted.mfu, 100 * r.measured_mfu,
                             r.predicted.fits ? "yes" : "NO");
}

std::string FidelityStudy::listing(const std::vector<PointCheck>& /*checks*/) const {
  std::string text = fmt::format("fidelity {}: {} measurements\n", name_, measurements_.size());
  for (std::size_t i = 0; i < measurements_.size(); ++i) {
    const TrainingMeasurement& m = measurements_[i];
    text += fmt::format("{:>3}  {}  ({}, {}) {} -> {} ({} cores), mesh {}\n", i, m.id, m.family, m.software,
                        m.file, m.config.hardware.topology.name(), m.config.hardware.topology.num_cores(),
                        m.config.mesh.shape_text());
  }
  return text;
}

}  // namespace tpusim::workloads
