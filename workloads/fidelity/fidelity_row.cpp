#include "workloads/fidelity/fidelity_row.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "topologies/support/check.hpp"

namespace tpusim::workloads {

FidelityRow fidelity_row(const TrainingMeasurement& measurement, const PointResult& predicted,
                         const StepFeatures& features) {
  FidelityRow row;
  row.measurement = &measurement;
  row.predicted = predicted;
  row.features = features;
  if (!row.ok()) return row;
  row.measured_step_s = measurement.measured_step_s(predicted.model_flops_per_step);
  // The predicted MFU scaled by the ratio of the steps: the same FLOPs and peak, over the measured step.
  row.measured_mfu = predicted.mfu * predicted.step_time_s / row.measured_step_s;
  return row;
}

double median(std::vector<double> values) {
  TPUSIM_CHECK(!values.empty());
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

FidelitySummary summarise(const std::vector<FidelityRow>& rows) {
  FidelitySummary summary;
  std::vector<double> abs_errors;
  std::vector<std::string> families;
  for (const auto& row : rows) {
    if (!row.ok()) {
      ++summary.failed;
      continue;
    }
    abs_errors.push_back(std::abs(row.error()));
    if (std::find(families.begin(), families.end(), row.measurement->family) == families.end())
      families.push_back(row.measurement->family);
  }
  summary.rows = static_cast<int>(abs_errors.size());
  if (abs_errors.empty()) return summary;
  summary.median_abs_error = median(abs_errors);
  summary.max_abs_error = *std::max_element(abs_errors.begin(), abs_errors.end());
  for (const auto& family : families) {
    std::vector<double> errors, abs_family;
    for (const auto& row : rows) {
      if (!row.ok() || row.measurement->family != family) continue;
      errors.push_back(row.error());
      abs_family.push_back(std::abs(row.error()));
    }
    summary.families.push_back({family, static_cast<int>(errors.size()), median(errors), median(abs_family)});
  }
  return summary;
}

nlohmann::json to_json(const FidelitySummary& summary) {
  nlohmann::json families = nlohmann::json::array();
  for (const auto& f : summary.families)
    families.push_back({{"family", f.family},
                        {"rows", f.rows},
                        {"median_error", f.median_error},
                        {"median_abs_error", f.median_abs_error}});
  return {{"rows", summary.rows},
          {"failed", summary.failed},
          {"median_abs_error", summary.rows > 0 ? nlohmann::json(summary.median_abs_error) : nullptr},
          {"max_abs_error", summary.rows > 0 ? nlohmann::json(summary.max_abs_error) : nullptr},
          {"families", families}};
}

std::string summary_text(const FidelitySummary& summary) {
  if (summary.rows == 0) return "no measurement could be predicted\n";
  std::string text = fmt::format("median |error| {:.1f}% over {} measurements (largest {:.1f}%){}\n",
                                 100 * summary.median_abs_error, summary.rows, 100 * summary.max_abs_error,
                                 summary.failed > 0 ? fmt::format("; {} could not run", summary.failed) : "");
  for (const auto& f : summary.families) {
    text += fmt::format("  {:<22} {:>2} rows  median error {:+6.1f}%  median |error| {:5.1f}%\n", f.family,
                        f.rows, 100 * f.median_error, 100 * f.median_abs_error);
  }
  return text;
}

}  // namespace tpusim::workloads
