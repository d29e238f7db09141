#pragma once
// One measurement against tpusim's prediction of it: the figures a fidelity report shows, in one type that
// the table, the CSV, the JSON and the summary all read.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/fidelity/calibration.hpp"
#include "workloads/fidelity/training_measurement.hpp"
#include "workloads/sweep/sweep_run.hpp"

namespace tpusim::workloads {

struct FidelityRow {
  const TrainingMeasurement* measurement = nullptr;
  PointResult predicted;       // the simulated step (error set when it could not run)
  double measured_step_s = 0;  // TrainingMeasurement::measured_step_s
  double measured_mfu = 0;     // the model's FLOPs per step over the measured step, as a fraction of peak
  StepFeatures features;       // the predicted step split by bound, for calibration

  bool ok() const { return predicted.error.empty(); }
  // predicted / measured - 1: negative when tpusim is too fast.
  double error() const { return predicted.step_time_s / measured_step_s - 1; }
};

FidelityRow fidelity_row(const TrainingMeasurement& measurement, const PointResult& predicted,
                         const StepFeatures& features = {});

// The median of |error| over the rows that ran, overall and per family (first seen first), and the median
// signed error of each family, so the direction of a family's error shows.
struct FamilySummary {
  std::string family;
  int rows = 0;
  double median_error = 0;
  double median_abs_error = 0;
};
struct FidelitySummary {
  int rows = 0;  // that ran
  int failed = 0;
  double median_abs_error = 0;
  double max_abs_error = 0;
  std::vector<FamilySummary> families;
};
FidelitySummary summarise(const std::vector<FidelityRow>& rows);
nlohmann::json to_json(const FidelitySummary& summary);
std::string summary_text(const FidelitySummary& summary);

double median(std::vector<double> values);  // of a non-empty list

}  // namespace tpusim::workloads
