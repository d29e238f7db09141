#include "workloads/sweep/sweep_catalog.hpp"

#include <fmt/format.h>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::workloads {

std::vector<std::string> sweep_preset_names() {
  std::vector<std::string> names;
  for (const auto& sweep : embedded_sweeps()) names.push_back(sweep.name);
  return names;
}

std::string sweep_preset_source(const std::string& name) { return "workloads/sweeps/" + name + ".yaml"; }

std::string sweep_preset_text(const std::string& name) {
  for (const auto& sweep : embedded_sweeps()) {
    if (name == sweep.name) return sweep.yaml;
  }
  throw InputError(fmt::format("unknown sweep preset '{}'{}; valid sweep presets are {}", name,
                               did_you_mean(name, sweep_preset_names()), join(sweep_preset_names())));
}

Sweep load_sweep_preset(const std::string& name) {
  return parse_sweep(sweep_preset_text(name), sweep_preset_source(name));
}

}  // namespace tpusim::workloads
