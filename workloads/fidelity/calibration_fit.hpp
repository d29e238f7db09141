#pragma once
// Calibration of a set of measurements (calibration.hpp): a profile per device and software release fitted
// to the rows of that group, and each row's leave-one-out prediction.
#include <string>
#include <vector>

#include "workloads/fidelity/calibration.hpp"
#include "workloads/fidelity/fidelity_row.hpp"

namespace tpusim::workloads {

struct CalibratedRow {
  const FidelityRow* row = nullptr;
  std::string profile;             // its group's profile name
  double uncalibrated_step_s = 0;  // the mechanisms alone (the simulated step)
  double fitted_step_s = 0;        // by the profile fitted to its whole group, itself included
  double left_out_step_s = 0;      // by a profile fitted to the rest of its group (uncalibrated when alone)
  int left_out_fitted_to = 0;      // how many rows that fit had
  double error(double step_s) const { return step_s / row->measured_step_s - 1; }
};

struct CalibrationResult {
  std::vector<CalibrationProfile> profiles;
  std::vector<CalibratedRow> rows;  // in the rows' order; rows that did not run are left out
};

CalibrationResult calibrate(const std::vector<FidelityRow>& rows);
std::string calibration_text(const CalibrationResult& result);
nlohmann::json to_json(const CalibrationResult& result);

}  // namespace tpusim::workloads
