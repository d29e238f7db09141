#pragma once
// The calibration profiles shipped in workloads/fidelity/calibrations/*.yaml (written by tpusim calibrate
// from the shipped measurements), embedded at build time so that hardware.calibration: NAME works anywhere.
#include <vector>

namespace tpusim::workloads {

struct EmbeddedCalibration {
  const char* name;  // the file name without .yaml
  const char* yaml;
};
const std::vector<EmbeddedCalibration>& embedded_calibrations();  // generated, sorted by name

}  // namespace tpusim::workloads
