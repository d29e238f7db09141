#include "workloads/fidelity/calibration_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "topologies/support/units.hpp"

namespace tpusim::workloads {
namespace {

CalibrationSample sample_of(const FidelityRow& row) { return {row.features, row.measured_step_s}; }

std::string device_of(const FidelityRow& row) { return row.measurement->config.hardware.device.name(); }

}  // namespace

CalibrationResult calibrate(const std::vector<FidelityRow>& rows) {
  CalibrationResult result;
  std::map<std::string, std::vector<const FidelityRow*>> groups;
  std::vector<std::string> order;
  for (const auto& row : rows) {
    if (!row.ok()) continue;
    const std::string name = profile_name(device_of(row), row.measurement->software);
    if (groups[name].empty()) order.push_back(name);
    groups[name].push_back(&row);
  }
  std::map<std::string, CalibrationValues> fitted;
  for (const auto& name : order) {
    std::vector<CalibrationSample> samples;
    CalibrationProfile profile;
    profile.name = name;
    profile.device = device_of(*groups[name].front());
    profile.software = groups[name].front()->measurement->software;
    for (const FidelityRow* row : groups[name]) {
      samples.push_back(sample_of(*row));
      profile.fitted_to.push_back(row->measurement->id);
    }
    profile.values = fit_calibration(samples);
    fitted[name] = profile.values;
    result.profiles.push_back(profile);
  }
  for (const auto& row : rows) {
    if (!row.ok()) continue;
    CalibratedRow c;
    c.row = &row;
    c.profile = profile_name(device_of(row), row.measurement->software);
    c.uncalibrated_step_s = row.predicted.step_time_s;
    c.fitted_step_s = calibrated_step_s(row.features, fitted[c.profile]);
    std::vector<CalibrationSample> others;
    for (const FidelityRow* other : groups[c.profile]) {
      if (other != &row) others.push_back(sample_of(*other));
    }
    c.left_out_fitted_to = static_cast<int>(others.size());
    c.left_out_step_s = calibrated_step_s(row.features, fit_calibration(others));
    result.rows.push_back(c);
  }
  return result;
}

std::string calibration_text(const CalibrationResult& result) {
  std::string text = "profiles (least squares on log step time; calibration.hpp)\n";
  const auto& params = calibration_parameters();
  for (const auto& p : result.profiles) {
    text += fmt::format("  {}  ({} measurements)\n", p.name, p.fitted_to.size());
    const auto edges = range_edges(p);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const auto edge = std::find_if(edges.begin(), edges.end(),
                                     [&](const RangeEdge& e) { return e.parameter == params[i].name; });
      text += fmt::format("    {:<24} {:>10.4g}  ({:g} to {:g}){}\n", params[i].name, p.values[i],
                          params[i].min, params[i].max,
                          edge == edges.end() ? ""
                          : edge->high        ? "  at the high end"
                                              : "  at the low end");
    }
  }
  text += fmt::format("\n{:<28} {:>10}  {:>18}  {:>18}  {:>22}\n", "measurement", "measured", "uncalibrated",
                      "calibrated (fit)", "leave-one-out");
  std::vector<double> uncalibrated, fit, left_out;
  for (const auto& c : result.rows) {
    text += fmt::format(
        "{:<28} {:>10}  {:>10} {:>+6.1f}%  {:>10} {:>+6.1f}%  {:>10} {:>+6.1f}% ({})\n",
        c.row->measurement->id, format_duration(c.row->measured_step_s),
        format_duration(c.uncalibrated_step_s), 100 * c.error(c.uncalibrated_step_s),
        format_duration(c.fitted_step_s), 100 * c.error(c.fitted_step_s), format_duration(c.left_out_step_s),
        100 * c.error(c.left_out_step_s),
        c.left_out_fitted_to == 0 ? "alone: uncalibrated" : fmt::format("fit to {}", c.left_out_fitted_to));
    uncalibrated.push_back(std::abs(c.error(c.uncalibrated_step_s)));
    fit.push_back(std::abs(c.error(c.fitted_step_s)));
    left_out.push_back(std::abs(c.error(c.left_out_step_s)));
  }
  if (!result.rows.empty()) {
    text += fmt::format("median |error|: uncalibrated {:.1f}%, calibrated {:.1f}%, leave-one-out {:.1f}%\n",
                        100 * median(uncalibrated), 100 * median(fit), 100 * median(left_out));
  }
  return text;
}

nlohmann::json to_json(const CalibrationResult& result) {
  nlohmann::json profiles = nlohmann::json::array(), rows = nlohmann::json::array();
  for (const auto& p : result.profiles) profiles.push_back(to_json(p));
  for (const auto& c : result.rows) {
    rows.push_back({{"measurement", c.row->measurement->id},
                    {"profile", c.profile},
                    {"measured_step_s", c.row->measured_step_s},
                    {"uncalibrated_step_s", c.uncalibrated_step_s},
                    {"uncalibrated_error", c.error(c.uncalibrated_step_s)},
                    {"calibrated_step_s", c.fitted_step_s},
                    {"calibrated_error", c.error(c.fitted_step_s)},
                    {"leave_one_out_step_s", c.left_out_step_s},
                    {"leave_one_out_error", c.error(c.left_out_step_s)},
                    {"leave_one_out_fitted_to", c.left_out_fitted_to}});
  }
  return {{"profiles", profiles}, {"rows", rows}};
}

}  // namespace tpusim::workloads
