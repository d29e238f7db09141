#pragma once
// The measurements shipped in workloads/fidelity/measurements/*.yaml, embedded into the binary at build time
// (workloads/embed_yaml.cmake), so `tpusim fidelity` runs them from any working directory.
#include <vector>

namespace tpusim::workloads {

struct EmbeddedMeasurement {
  const char* name;  // the file name without .yaml
  const char* yaml;
};
const std::vector<EmbeddedMeasurement>& embedded_measurements();  // generated, sorted by name

}  // namespace tpusim::workloads
