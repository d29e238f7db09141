#include "workloads/config/preset_catalog.hpp"

#include <fmt/format.h>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/config/config_parser.hpp"

namespace tpusim::workloads {

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& preset : embedded_presets()) names.push_back(preset.name);
  return names;
}

const std::string preset_source(const std::string& name) { return "workloads/presets/" + name + ".yaml"; }

std::string preset_text(const std::string& name) {
  for (const auto& preset : embedded_presets()) {
    if (name == preset.name) return preset.yaml;
  }
  throw InputError(fmt::format("unknown preset '{}'{}; valid presets are {}", name,
                               did_you_mean(name, preset_names()), join(preset_names())));
}

RunConfig load_preset(const std::string& name) {
  return parse_run_config(preset_text(name), preset_source(name));
}

}  // namespace tpusim::workloads
