#pragma once
// A sweep point's config: the base config with the sweep's values put in at their dotted keys (set's for
// every point, then the point's own), resolved as `tpusim run` resolves a config. A problem is located at the
// sweep value that causes it (sweep_spec.hpp says how).
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "workloads/config/config_layers.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/config/run_config.hpp"
#include "workloads/sweep/sweep_sections.hpp"

namespace tpusim::workloads {

// The config `base` names (read_base_config, relative to the sweep file), merged when it has a base of its
// own; problems located at `base`.
BaseConfig read_base(const ConfigNode& base, const std::string& sweep_file);

class SweepPointBuilder {
 public:
  SweepPointBuilder(BaseConfig base, const std::vector<SweepValue>& settings, std::string sweep_file);

  const BaseConfig& base() const { return base_; }
  // The base's value at a dotted key as written (sweep_value_text), "" if the base leaves it out.
  std::string base_text(const std::vector<std::string>& parts) const;

  // The base with set's values and then `own`.
  RunConfig build(const std::vector<const SweepValue*>& own) const;
  // Rethrows `error` of build(own) located at the value that causes it: the error itself if it is located in
  // the sweep file; else the first of `own` that the base (with set's values) rejects alone, or else the last
  // of `own`, saying which point (`point`) the combination is.
  [[noreturn]] void fail(const std::vector<const SweepValue*>& own, const InputError& error,
                         const std::string& point) const;

 private:
  bool settings_alone_valid() const;

  BaseConfig base_;
  YAML::Node base_tree_;
  const std::vector<SweepValue>& settings_;
  std::string sweep_file_;
  mutable std::optional<bool> settings_alone_valid_;
};

}  // namespace tpusim::workloads
