#pragma once
// The example sweeps shipped in workloads/sweeps/*.yaml, embedded into the binary at build time
// (sweep/embed_sweeps.cmake) so `tpusim sweep --preset NAME` runs from any working directory. Their bases
// are preset configs, which are embedded too.
#include <string>
#include <vector>

#include "workloads/sweep/sweep_spec.hpp"

namespace tpusim::workloads {

struct EmbeddedSweep {
  const char* name;
  const char* yaml;
};
const std::vector<EmbeddedSweep>& embedded_sweeps();  // generated, sorted by name

std::vector<std::string> sweep_preset_names();
std::string sweep_preset_source(const std::string& name);  // "workloads/sweeps/NAME.yaml"
std::string sweep_preset_text(const std::string& name);    // InputError naming the valid sweeps
Sweep load_sweep_preset(const std::string& name);

}  // namespace tpusim::workloads
