#pragma once
// Explicit calibration of what the mechanisms leave unexplained: a few named, bounded, physical parameters
// per device and software release, fitted to measured steps by least squares on log step time.
//
// The parameters (calibration_parameters(), each with its range and its uncalibrated value):
//   matrix_unit_efficiency  the fraction of the matrix unit's modelled rate a step achieves, 0.3 to 1
//   hbm_efficiency          the fraction of HBM bandwidth achieved, 0.5 to 1
//   op_overhead_s           time per kernel (fusion) on top of its roofline, 0 to 10 us
//   step_overhead_s         time per step outside the device program (host, infeed), 0 to 50 ms
// A step's calibrated time is modelled from its uncalibrated run, split by what bound each part of it
// (StepFeatures, from tpusim run --explain's split):
//   matrix_s / matrix_unit_efficiency + hbm_s / hbm_efficiency + other_s + kernels * op_overhead_s
//   + step_overhead_s
// which keeps the fit to closed forms (no simulation per trial). The fit minimises the squared log errors
// plus a weak pull of each parameter toward its uncalibrated value (kPrior, in units of its range), so that
// a parameter the measurements cannot tell apart from another stays where the mechanisms put it; the search
// is coordinate-wise golden-section inside the bounds, repeated until no parameter moves.
// Leave-one-out: each measurement predicted by a fit to the others of its group (with none, uncalibrated).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mesh_tf/device_model.hpp"

namespace tpusim::workloads {

struct CalibrationParameter {
  std::string name;
  double min = 0, max = 0;
  double uncalibrated = 0;
  std::string meaning;
};
const std::vector<CalibrationParameter>& calibration_parameters();

// An uncalibrated step split by bound (seconds per step) and its kernels (compute ops with time of their
// own).
struct StepFeatures {
  double matrix_s = 0;  // matrix unit bound
  double hbm_s = 0;     // HBM bandwidth bound
  double other_s = 0;   // vector unit, FLOP rate, per-op overhead, exposed communication, idle
  double kernels = 0;
};

// Values of calibration_parameters(), in their order.
using CalibrationValues = std::vector<double>;
CalibrationValues uncalibrated_values();
double calibrated_step_s(const StepFeatures& features, const CalibrationValues& values);

struct CalibrationSample {
  StepFeatures features;
  double measured_step_s = 0;
};
constexpr double kPrior = 0.01;
CalibrationValues fit_calibration(const std::vector<CalibrationSample>& samples);

// A profile: the fitted values for one device and software release, and what they were fitted to.
struct CalibrationProfile {
  std::string name;    // "tpu-v3-core_tensorflow-1.14"
  std::string source;  // where it was read from: a shipped name or a file path ("" when just fitted)
  std::string device;
  std::string software;
  CalibrationValues values;
  std::vector<std::string> fitted_to;  // measurement ids
};
// A fitted value this close to either end of its parameter's range, as a fraction of the range, is at the
// end: the fit pressed against a physical bound, which says a mechanism is missing rather than calibrated.
constexpr double kRangeEdgeFraction = 0.02;
struct RangeEdge {
  std::string parameter;
  double value = 0;
  bool high = false;  // at the high end (else the low end)
};
std::vector<RangeEdge> range_edges(const CalibrationProfile& profile);
// One warning per such parameter: "PROFILE: NAME VALUE is at the low end of its range (MIN to MAX): ...".
std::vector<std::string> range_edge_warnings(const CalibrationProfile& profile);

nlohmann::json to_json(const CalibrationProfile& profile);  // with "at_range_edge": the parameters' names
std::string profile_yaml(const CalibrationProfile& profile);
// "tpu-v3-core" and "TensorFlow 1.14" -> "tpu-v3-core_tensorflow-1.14"
std::string profile_name(const std::string& device, const std::string& software);

// A profile as profile_yaml writes it. InputError at the file, line and key for a missing or unknown key or
// a parameter outside its range.
CalibrationProfile parse_calibration_profile(const std::string& yaml_text, const std::string& file);
// A shipped profile by name (workloads/fidelity/calibrations/NAME.yaml, embedded) or a profile file.
CalibrationProfile load_calibration_profile(const std::string& name_or_path);
std::vector<std::string> shipped_profile_names();

// The device under a profile: its matrix unit at matrix_unit_efficiency of its modelled rate, its HBM at
// hbm_efficiency of its bandwidth, op_overhead_s added to every kernel (the step overhead is the run's).
mtf::DeviceModel calibrated_device(const mtf::DeviceModel& device, const CalibrationProfile& profile);
double step_overhead_s(const CalibrationProfile& profile);

}  // namespace tpusim::workloads
