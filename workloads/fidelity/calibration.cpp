#include "workloads/fidelity/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/text_file.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/fidelity/calibration_catalog.hpp"

namespace tpusim::workloads {

const std::vector<CalibrationParameter>& calibration_parameters() {
  static const std::vector<CalibrationParameter> table = {
      {"matrix_unit_efficiency", 0.3, 1.0, 1.0,
       "fraction of the matrix unit's modelled rate achieved (layouts, padding, pipeline stalls not "
       "modelled)"},
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
  // Values the search leaves a hair from a bound are the bound.
  const auto& params = calibration_parameters();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double tolerance = 1e-6 * (params[i].max - params[i].min);
    if (v[i] - params[i].min < tolerance) v[i] = params[i].min;
    if (params[i].max - v[i] < tolerance) v[i] = params[i].max;
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

std::vector<RangeEdge> range_edges(const CalibrationProfile& profile) {
  std::vector<RangeEdge> edges;
  const auto& params = calibration_parameters();
  for (std::size_t i = 0; i < params.size() && i < profile.values.size(); ++i) {
    const double margin = kRangeEdgeFraction * (params[i].max - params[i].min);
    const double value = profile.values[i];
    if (value - params[i].min <= margin)
      edges.push_back({params[i].name, value, false});
    else if (params[i].max - value <= margin)
      edges.push_back({params[i].name, value, true});
  }
  return edges;
}

std::vector<std::string> range_edge_warnings(const CalibrationProfile& profile) {
  std::vector<std::string> warnings;
  for (const auto& edge : range_edges(profile)) {
    const auto& p = *std::find_if(calibration_parameters().begin(), calibration_parameters().end(),
                                  [&](const CalibrationParameter& q) { return q.name == edge.parameter; });
    warnings.push_back(fmt::format(
        "calibration profile {}: {} {:g} is at the {} end of its range ({:g} to {:g}, within {:g}%): the fit "
        "pressed against a bound, so a mechanism is missing there, not calibrated",
        profile.name, edge.parameter, edge.value, edge.high ? "high" : "low", p.min, p.max,
        100 * kRangeEdgeFraction));
  }
  return warnings;
}

nlohmann::json to_json(const CalibrationProfile& profile) {
  nlohmann::json parameters = nlohmann::json::object(), edges = nlohmann::json::array();
  const auto& params = calibration_parameters();
  for (std::size_t i = 0; i < params.size(); ++i) parameters[params[i].name] = profile.values[i];
  for (const auto& edge : range_edges(profile)) edges.push_back(edge.parameter);
  return {{"name", profile.name},     {"device", profile.device}, {"software", profile.software},
          {"parameters", parameters}, {"at_range_edge", edges},   {"fitted_to", profile.fitted_to}};
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

CalibrationProfile parse_calibration_profile(const std::string& yaml_text, const std::string& file) {
  const ConfigNode root = ConfigNode::parse(yaml_text, file);
  root.expect_map({"name", "device", "software", "parameters", "fitted_to"});
  CalibrationProfile profile;
  profile.name = root.child("name").scalar();
  // The name is what reports say the step was calibrated with, and the file calibrate writes it to.
  if (const std::string problem = plain_name_problem(profile.name, "profile name"); !problem.empty())
    root.child("name").fail(problem);
  profile.device = root.child("device").scalar();
  profile.software = root.child("software").scalar();
  const ConfigNode parameters = root.child("parameters");
  std::vector<std::string> names;
  for (const auto& p : calibration_parameters()) names.push_back(p.name);
  parameters.expect_map(names);
  for (const auto& p : calibration_parameters()) {
    const ConfigNode value = parameters.child(p.name);
    const double x = value.number();
    if (!(x >= p.min && x <= p.max))
      value.fail(fmt::format("{:g} is outside its range, {:g} to {:g}", x, p.min, p.max));
    profile.values.push_back(x);
  }
  for (const auto& item : root.child("fitted_to").items("measurement ids"))
    profile.fitted_to.push_back(item.scalar());
  return profile;
}

std::vector<std::string> shipped_profile_names() {
  std::vector<std::string> names;
  for (const auto& entry : embedded_calibrations()) names.push_back(entry.name);
  return names;
}

CalibrationProfile load_calibration_profile(const std::string& name_or_path) {
  for (const auto& entry : embedded_calibrations()) {
    if (name_or_path != entry.name) continue;
    CalibrationProfile profile = parse_calibration_profile(
        entry.yaml, std::string("workloads/fidelity/calibrations/") + entry.name + ".yaml");
    profile.source = name_or_path;
    return profile;
  }
  if (name_or_path.find('/') == std::string::npos && name_or_path.find(".yaml") == std::string::npos) {
    throw InputError(fmt::format(
        "unknown calibration profile '{}'{}; the shipped ones are {} (or give a profile file)", name_or_path,
        did_you_mean(name_or_path, shipped_profile_names()), join(shipped_profile_names())));
  }
  CalibrationProfile profile =
      parse_calibration_profile(read_input_file(name_or_path, "calibration profile"), name_or_path);
  profile.source = name_or_path;
  return profile;
}

mtf::DeviceModel calibrated_device(const mtf::DeviceModel& device, const CalibrationProfile& profile) {
  const CalibrationValues& v = profile.values;
  return device
      .with_figures(device.peak_flops(), device.hbm_bandwidth_Bps() * v[1], device.hbm_bytes(),
                    device.op_overhead_s() + v[2])
      .with_matrix_unit_efficiency(v[0]);
}

double step_overhead_s(const CalibrationProfile& profile) { return profile.values[3]; }

}  // namespace tpusim::workloads
