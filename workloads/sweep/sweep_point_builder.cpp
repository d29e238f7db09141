#include "workloads/sweep/sweep_point_builder.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text_file.hpp"
#include "workloads/config/config_layers.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/preset_catalog.hpp"

namespace tpusim::workloads {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

BaseConfig read_base(const ConfigNode& node, const std::string& sweep_file) {
  const std::string base = node.scalar();
  std::error_code error;
  if (names_a_config_file(base)) {
    const auto slash = sweep_file.find_last_of('/');
    const std::string path =
        base[0] == '/' || slash == std::string::npos ? base : sweep_file.substr(0, slash + 1) + base;
    if (std::filesystem::equivalent(path, sweep_file, error))
      node.fail(fmt::format("'{}' is this sweep file itself; a sweep's base is a preset or a run config", base));
  }
  BaseConfig config = read_base_config(node, sweep_file);
  // A run config on a base of its own is merged here; the points change the merged config.
  const ConfigNode root = ConfigNode::parse(config.text, config.source);
  if (root.yaml().IsMap() && root.has("base")) {
    try {
      config.text = layer_config(config.text, config.source, {}).text;
    } catch (const InputError& error) {
      node.fail(error.what());
    }
  }
  return config;
}

SweepPointBuilder::SweepPointBuilder(BaseConfig base, const std::vector<SweepValue>& settings,
                                     std::string sweep_file)
    : base_(std::move(base)),
      base_tree_(YAML::Load(base_.text)),
      settings_(settings),
      sweep_file_(std::move(sweep_file)) {}

std::string SweepPointBuilder::base_text(const std::vector<std::string>& parts) const {
  YAML::Node node;
  node.reset(base_tree_);
  for (const auto& part : parts) {
    if (!node.IsMap()) return "";
    const YAML::Node& as_const = node;
    const YAML::Node child = as_const[part];
    if (!child) return "";
    node.reset(child);
  }
  return node.IsNull() ? "" : sweep_value_text(node);
}

RunConfig SweepPointBuilder::build(const std::vector<const SweepValue*>& own) const {
  YAML::Node root = YAML::Load(base_.text);
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap())
    throw InputError(fmt::format("{}:1: expected a config (a map of sections)", base_.source));
  NodeOrigins origins;
  const auto put = [&](const SweepValue& value) {
    substitute_setting(root, value.parts, value.node, value.label, base_.source);
    origins[value.key] = {sweep_file_, value.label, value.node};
  };
  for (const auto& value : settings_) put(value);
  for (const SweepValue* value : own) put(*value);
  return parse_run_config(ConfigNode(root, base_.source, origins), YAML::Dump(root) + "\n");
}

bool SweepPointBuilder::settings_alone_valid() const {
  if (!settings_alone_valid_) {
    try {
      build({});
      settings_alone_valid_ = true;
    } catch (const InputError&) {
      settings_alone_valid_ = false;
    }
  }
  return *settings_alone_valid_;
}

void SweepPointBuilder::fail(const std::vector<const SweepValue*>& own, const InputError& error,
                             const std::string& point) const {
  const std::string message = error.what();
  if (starts_with(message, sweep_file_ + ":") || own.empty()) throw error;
  // The first value that is wrong with the base alone is the culprit; otherwise the combination is, and the
  // last value of the point stands for it. With set's values in the base, that holds only if the base
  // with them is valid.
  std::size_t culprit = own.size() - 1;
  std::string problem = message;
  bool alone = false;
  if (settings_.empty() || settings_alone_valid()) {
    for (std::size_t a = 0; a < own.size() && !alone; ++a) {
      try {
        build({own[a]});
      } catch (const InputError& solo) {
        culprit = a;
        problem = solo.what();
        alone = true;
        if (starts_with(problem, sweep_file_ + ":")) throw solo;
      }
    }
  }
  const SweepValue& value = *own[culprit];
  const std::string context = alone || own.size() == 1 ? "" : fmt::format("in point {}: ", point);
  throw InputError(fmt::format("{}:{}: {}: {}{}", sweep_file_, value.line(), value.label, context, problem));
}

}  // namespace tpusim::workloads
