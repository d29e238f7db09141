#include "workloads/fidelity/training_measurement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text_file.hpp"
#include "workloads/config/config_layers.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/fidelity/measurement_catalog.hpp"

namespace tpusim::workloads {
namespace {

const std::vector<std::string> kMeasurementKeys = {"id",          "family", "source",      "software",
                                                   "reliability", "step_s", "flops_per_s", "derivation"};

// Sanity limits, far wider than any published training run's: a step of 1 us to a day, a pod's rate of
// 1 MFLOP/s to 1 ZFLOP/s. Past them a figure is a typo (a unit slip of 1e3 stays inside; 1e-300 does not).
double plausible_number(const ConfigNode& value, double min, double max, const char* range) {
  const double number = value.number();
  if (!(number >= min && number <= max))
    value.fail(fmt::format("{:g} is not plausible: expected {}", number, range));
  return number;
}

std::string text_of(const ConfigNode& section, const std::string& key) {
  const ConfigNode value = section.child(key);
  const std::string text = value.scalar();
  if (text.empty()) value.fail("must not be empty");
  return text;
}

void check_unique_ids(const std::vector<TrainingMeasurement>& measurements) {
  std::set<std::string> seen;
  for (const auto& m : measurements) {
    if (!seen.insert(m.id).second)
      throw InputError(
          fmt::format("{}: measurement.id: '{}' is the id of another measurement of the set", m.file, m.id));
  }
}

}  // namespace

double TrainingMeasurement::measured_step_s(double model_flops_per_step) const {
  return step_s ? *step_s : model_flops_per_step / *flops_per_s;
}

TrainingMeasurement parse_measurement(const std::string& yaml_text, const std::string& file) {
  const ConfigNode root = ConfigNode::parse(yaml_text, file);
  root.expect_map({"measurement", "config"});
  const ConfigNode section = root.child("measurement");
  section.expect_map(kMeasurementKeys);
  std::string id = text_of(section, "id"), family = text_of(section, "family"),
              source = text_of(section, "source"), software = text_of(section, "software"),
              reliability = text_of(section, "reliability"), derivation = text_of(section, "derivation");
  if (section.has("step_s") == section.has("flops_per_s"))
    section.fail("give exactly one of step_s (a measured step time) and flops_per_s (a measured FLOP rate)");
  std::optional<double> step_s, flops_per_s;
  if (section.has("step_s"))
    step_s = plausible_number(section.child("step_s"), 1e-6, 86400, "1e-06 to 86400 s");
  if (section.has("flops_per_s"))
    flops_per_s = plausible_number(section.child("flops_per_s"), 1e6, 1e21, "1e+06 to 1e+21 FLOP/s");
  RunConfig config = parse_run_config(root.child("config"), yaml_text);
  return TrainingMeasurement{std::move(id),
                             std::move(family),
                             std::move(source),
                             std::move(software),
                             std::move(reliability),
                             std::move(derivation),
                             step_s,
                             flops_per_s,
                             file,
                             std::move(config)};
}

TrainingMeasurement with_settings(const TrainingMeasurement& measurement,
                                  const std::vector<ConfigSetting>& sets) {
  if (sets.empty()) return measurement;
  // The measurement's config section as a config of its own, under the --set values; its text (and so its
  // records' hash) is the changed config's.
  const YAML::Node config = YAML::Load(measurement.config.yaml_text)["config"];
  const LayeredConfig layers =
      layer_config(YAML::Dump(config) + "\n", measurement.file + " (config)", sets);
  TrainingMeasurement changed = measurement;
  changed.config = parse_run_config(layers.root, layers.text);
  changed.config.name = measurement.config.name;
  changed.config.source = measurement.config.source;
  return changed;
}

std::vector<TrainingMeasurement> load_measurements(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(path, error)) {
    return {parse_measurement(read_input_file(path, "measurement file"), path)};
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path, error)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  if (error) throw InputError(fmt::format("{}: cannot list the folder: {}", path, error.message()));
  if (files.empty()) throw InputError(fmt::format("{}: the folder holds no measurement (*.yaml) file", path));
  std::sort(files.begin(), files.end());
  std::vector<TrainingMeasurement> measurements;
  for (const auto& file : files)
    measurements.push_back(parse_measurement(read_input_file(file, "measurement file"), file));
  check_unique_ids(measurements);
  return measurements;
}

std::vector<TrainingMeasurement> shipped_measurements() {
  std::vector<TrainingMeasurement> measurements;
  for (const auto& entry : embedded_measurements())
    measurements.push_back(parse_measurement(
        entry.yaml, std::string("workloads/fidelity/measurements/") + entry.name + ".yaml"));
  check_unique_ids(measurements);
  return measurements;
}

}  // namespace tpusim::workloads
