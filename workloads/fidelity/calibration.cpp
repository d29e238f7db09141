#include "workloads/fidelity/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "topologies/support/check.hpp"

namespace tpusim::workloads {

const std::vector<CalibrationParameter>& calibration_parameters() {
  static const std::vector<CalibrationParameter> table = {
      {"matrix_unit_efficiency", 0.3, 1.0, 1.0,
       "fraction of the matrix unit's modelled rate achieved (layouts, padding, pipeline stalls not modelled)"},
      {"hbm_efficiency", 0.5, 1.0, 1.0, "fraction of the HBM bandwidth achieved"},
      {"op_overhead_s", 0.0, 10e-6, 0.0, "time per kernel on top of its roofline (launch, pipeline fill)"},
      {"step_overhead_s", 0.0, 50e-3, 0.0, "time per step outside the device program (host, infeed)"},
  };
  return table;
}

CalibrationValues uncalibrated_values() {
  CalibrationValues values;
  for (const auto& p : calibration_parameters()) values.push_back(p.uncalibrated);
  return values;
}

double calibrated_step_s(const StepFeatures& f, const CalibrationValues& v) {
  TPUSIM_CHECK(v.size() == 4);
  return f.matrix_s / v[0] + f.hbm_s / v[1] + f.other_s + f.kernels * v[2] + v[3];
}

namespace {

double objective(const std::vector<CalibrationSample>& samples, const CalibrationValues& v) {
  double sum = 0;
  for (const auto& s : samples) {
    const double r = std::log(calibrated_step_s(s.features, v) / s.measured_step_s);
    sum += r * r;
  }
  const auto& params = calibration_parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const double d = (v[i] - params[i].uncalibrated) / (params[i].max - params[i].min);
    sum += kPrior * d * d;
  }
  return sum;
}

// Golden-section search of coordinate i in its bounds, the others fixed.
double best_along(const std::vector<CalibrationSample>& samples, CalibrationValues v, std::size_t i) {
  const auto& p = calibration_parameters()[i];
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double lo = p.min, hi = p.max;
  auto at = [&](double x) {
    v[i] = x;
    return objective(samples, v);
  };
  double a = hi - ratio * (hi - lo), b = lo + ratio * (hi - lo);
  double fa = at(a), fb = at(b);
  for (int iteration = 0; iteration < 80; ++iteration) {
    if (fa < fb) {
      hi = b;
      b = a;
      fb = fa;
      a = hi - ratio * (hi - lo);
      fa = at(a);
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + ratio * (hi - lo);
      fb = at(b);
    }
  }
  const double x = (lo + hi) / 2;
  // The bounds themselves, where the minimum sits on one.
  double best = x, best_f = at(x);
  for (const double edge : {p.min, p.max}) {
    const double f = at(edge);
    if (f < best_f) {
      best = edge;
      best_f = f;
    }
  }
  return best;
}

}  // namespace

CalibrationValues fit_calibration(const std::vector<CalibrationSample>& samples) {
  CalibrationValues v = uncalibrated_values();
  if (samples.empty()) return v;
  for (int sweep = 0; sweep < 200; ++sweep) {
    double moved = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double next = best_along(samples, v, i);
      const auto& p = calibration_parameters()[i];
      moved = std::max(moved, std::abs(next - v[i]) / (p.max - p.min));
      v[i] = next;
    }
    if (moved < 1e-9) break;
  }
  return v;
}

std::string profile_name(const std::string& device, const std::string& software) {
  std::string name = device + "_";
  bool dash = false;
  for (const char c : software) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.') {
      if (dash && name.back() != '_') name += '-';
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      dash = false;
    } else {
      dash = true;
    }
  }
  return name;
}

nlohmann::json to_json(const CalibrationProfile& profile) {
  nlohmann::json parameters = nlohmann::json::object();
  const auto& params = calibration_parameters();
  for (std::size_t i = 0; i < params.size(); ++i) parameters[params[i].name] = profile.values[i];
  return {{"name", profile.name},
          {"device", profile.device},
          {"software", profile.software},
          {"parameters", parameters},
          {"fitted_to", profile.fitted_to}};
}

std::string profile_yaml(const CalibrationProfile& profile) {
  std::string text = fmt::format(
      "# A calibration profile written by tpusim calibrate: least squares on log step time over the\n"
      "# measurements below (workloads/fidelity/calibration.hpp says how).\n"
      "name: {}\ndevice: {}\nsoftware: \"{}\"\nparameters:\n",
      profile.name, profile.device, profile.software);
  const auto& params = calibration_parameters();
  for (std::size_t i = 0; i < params.size(); ++i)
    text += fmt::format("  {}: {:.6g}  # {} to {}: {}\n", params[i].name, profile.values[i], params[i].min,
                        params[i].max, params[i].meaning);
  text += "fitted_to:\n";
  for (const auto& id : profile.fitted_to) text += "  - " + id + "\n";
  return text;
}

}  // namespace tpusim::workloads
