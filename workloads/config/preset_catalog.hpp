#pragma once
// The preset configs shipped in workloads/presets/*.yaml, embedded into the binary at build time
// (embed_presets.cmake) so they load from any working directory. The built-in default is lm-s5: the paper's
// largest language model (4.9B parameters) on the 512-core TPU v2 pod.
#include <string>
#include <vector>

#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

struct EmbeddedPreset {
  const char* name;
  const char* yaml;
};
const std::vector<EmbeddedPreset>& embedded_presets();  // generated, sorted by name

inline const char* default_preset_name() { return "lm-s5"; }
std::vector<std::string> preset_names();
const std::string preset_source(const std::string& name);  // "workloads/presets/NAME.yaml"
std::string preset_text(const std::string& name);          // InputError naming the valid presets
RunConfig load_preset(const std::string& name);

}  // namespace tpusim::workloads
