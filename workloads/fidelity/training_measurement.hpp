#pragma once
// A published measurement of TPU training that tpusim's prediction is held against: a step time (or a FLOP
// rate) from a source's log or figure, and the run config that rebuilds the measured run. One YAML file per
// measurement (the shipped ones in workloads/fidelity/measurements/, embedded at build time):
//
//   measurement:
//     id: resnet50_v3-32_mlperf06     # a short name, unique in a set
//     family: resnet                  # the measurements summarised together (resnet, bert, ...)
//     source: "..."                   # where the figure comes from: repository and path, or publication
//     software: TensorFlow 1.14       # the release that produced it: a figure belongs to its release
//     reliability: A                  # as the source's entry grades it (A exact, B read off a plot ...)
//     step_s: 0.13109                 # the measured step time, or
//     flops_per_s: 250e12             #   the measured FLOP rate (the step is tpusim's model FLOPs over it)
//     derivation: "..."               # how the figure was derived from the source
//   config:                           # a run config (tpusim run --schema), read as tpusim run reads one
//     ...
//
// Unknown or missing keys, both or neither of step_s and flops_per_s, and a bad config are InputErrors at
// their file and line.
#include <optional>
#include <string>
#include <vector>

#include "workloads/config/config_layers.hpp"
#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

struct TrainingMeasurement {
  std::string id;
  std::string family;
  std::string source;
  std::string software;
  std::string reliability;
  std::string derivation;
  std::optional<double> step_s;       // exactly one of these two
  std::optional<double> flops_per_s;  // whole pod
  std::string file;                   // where it was read from
  RunConfig config;

  // The measured step: step_s, or the model's FLOPs per step over the measured rate.
  double measured_step_s(double model_flops_per_step) const;
};

TrainingMeasurement parse_measurement(const std::string& yaml_text, const std::string& file);
// The measurement with the command line's --set values over its config (config_layers.hpp).
TrainingMeasurement with_settings(const TrainingMeasurement& measurement, const std::vector<ConfigSetting>& sets);
// A measurement file, or every *.yaml of a folder (sorted by name). InputError for a path that is neither,
// an empty folder, a bad file or two measurements with one id.
std::vector<TrainingMeasurement> load_measurements(const std::string& path);
// The shipped set, workloads/fidelity/measurements/*.yaml, in file-name order.
std::vector<TrainingMeasurement> shipped_measurements();

}  // namespace tpusim::workloads
