#include "workloads/config/config_layers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/text_file.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/config/preset_catalog.hpp"

namespace tpusim::workloads {
namespace {

// Keys a config file may hold that are not run config keys: its base, and the section tpusim search reads.
const std::set<std::string> kLayerKeys = {"base", "search"};

bool has_subkeys(const std::string& prefix) {
  for (const auto& key : config_keys()) {
    if (key.rfind(prefix + ".", 0) == 0) return true;
  }
  return false;
}

[[noreturn]] void unknown_key(const ConfigNode& at, const std::string& key) {
  const auto keys = config_keys();
  at.fail(fmt::format("'{}' is not a config key{}; valid keys are {}{}", key, did_you_mean(key, keys),
                      join(keys), config_subkeys_text()));
}

// The settings a file writes: each config key it names, with the node as written. Sections are walked into
// as far as the schema has keys below them, so a section changes only the keys it names.
void collect(const ConfigNode& node, const std::string& prefix, std::vector<ConfigSetting>& settings) {
  for (const auto& key : node.keys()) {
    if (prefix.empty() && kLayerKeys.count(key) != 0) continue;
    const std::string dotted = prefix.empty() ? key : prefix + "." + key;
    const ConfigNode value = node.child(key);
    if (value.yaml().IsMap() && has_subkeys(dotted)) {
      collect(value, dotted, settings);
    } else if (is_config_key(dotted)) {
      settings.push_back({dotted, value.yaml(), value.file(), dotted});
    } else {
      unknown_key(value, dotted);
    }
  }
}

std::string flow_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

// A description of a config by what it changes over `base`, so that no headline repeats a base's words
// ("the paper's LM on the TPU v2 pod") over a config that moved it elsewhere.
ConfigSetting described(const std::string& base, const std::vector<ConfigSetting>& changes,
                        const std::string& file, const std::string& label) {
  std::vector<std::string> changed;
  for (const auto& setting : changes) {
    if (setting.key != "name" && setting.key != "description")
      changed.push_back(setting.key + " " + flow_text(setting.value));
  }
  const std::string text =
      fmt::format("{} with {}", base, changed.empty() ? "nothing changed" : join(changed, ", "));
  return {"description", YAML::Node(text), file, label};
}

// The merged tree of a config over its bases, with the settings of every layer above the bottom one.
struct Merged {
  YAML::Node tree;            // the bottom layer as parsed afresh (with its lines), settings not yet put
  std::string bottom_source;  // the file whose lines the tree's unchanged keys have
  std::vector<ConfigSetting> settings;
};

Merged merge(const std::string& text, const ConfigNode& root, int depth, std::set<std::string>& seen) {
  const auto base_node = root.yaml().IsMap() ? root.optional_child("base") : std::nullopt;
  if (!base_node) {
    YAML::Node tree = YAML::Load(text);
    if (tree.IsNull()) tree = YAML::Node(YAML::NodeType::Map);
    if (tree.IsMap()) tree.remove("search");
    return {tree, root.file(), {}};
  }
  if (depth >= kMaxBaseDepth) {
    base_node->fail(
        fmt::format("more than {} bases in a chain: do the configs name each other?", kMaxBaseDepth));
  }
  const BaseConfig base = read_base_config(*base_node, root.file());
  std::error_code error;
  const std::string identity = std::filesystem::weakly_canonical(base.source, error).string();
  if (!seen.insert(identity).second) {
    base_node->fail(
        fmt::format("'{}' is a base of itself (the configs name each other)", base_node->scalar()));
  }
  Merged merged = merge(base.text, ConfigNode::parse(base.text, base.source), depth + 1, seen);
  std::vector<ConfigSetting> own;
  collect(root, "", own);
  // A derived config is a run of its own: its name is its file's unless it says, so that its results never
  // replace its base's; and its description says what it changed rather than repeating the base's.
  const std::string file = root.file();
  if (!root.has("name")) own.push_back({"name", YAML::Node(config_file_stem(file)), file, "name"});
  if (!root.has("description")) own.push_back(described(base_node->scalar(), own, file, "description"));
  merged.settings.insert(merged.settings.end(), own.begin(), own.end());
  return merged;
}

}  // namespace

BaseConfig read_base_config(const ConfigNode& base_node, const std::string& file) {
  const std::string base = base_node.scalar();
  if (base.empty()) base_node.fail("must name a preset or a config file");
  BaseConfig config;
  std::optional<ConfigNode> root;
  try {
    if (!names_a_config_file(base)) return {preset_text(base), preset_source(base)};
    const auto slash = file.find_last_of('/');
    config.source = base[0] == '/' || slash == std::string::npos ? base : file.substr(0, slash + 1) + base;
    config.text = read_input_file(config.source, "config file");
    root.emplace(ConfigNode::parse(config.text, config.source));  // YAML syntax errors, located in the base
  } catch (const InputError& error) {
    base_node.fail(error.what());
  }
  // A sweep as the base would be read as a run config and fail at its first sweep key, "unknown key".
  for (const char* sweep_key : {"vary", "points"}) {
    if (root->yaml().IsMap() && root->has(sweep_key)) {
      base_node.fail(fmt::format("'{}' is a sweep file ({}:{} has '{}'); a base is a preset or a run config",
                                 base, config.source, root->child(sweep_key).line(), sweep_key));
    }
  }
  return config;
}

bool names_a_config_file(const std::string& base) {
  const auto ends_with = [&](const std::string& suffix) {
    return base.size() >= suffix.size() &&
           base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return base.find('/') != std::string::npos || ends_with(".yaml") || ends_with(".yml");
}

SetOption split_set_option(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw InputError(fmt::format("--set '{}': expected key=value, such as model.d_ff=4096", text));
  }
  return {text.substr(0, equals), text.substr(equals + 1)};
}

void throw_missing_set_value(const std::string& key) {
  throw InputError(fmt::format("--set {}: no value after '='; give one, such as {}=...", key, key));
}

ConfigSetting parse_set_option(const std::string& text) {
  const auto [key, value_text] = split_set_option(text);
  const std::string label = "--set " + key;
  // A value is one YAML value on one line. Text with a line break is taken whole as a string, which the
  // key's reader then refuses or keeps: parsed as YAML, its later lines would add keys of their own or end
  // the document, and the value would run cut at the break.
  const bool one_line = value_text.find_first_of("\r\n") == std::string::npos;
  const YAML::Node yaml = one_line
                              ? ConfigNode::parse("value: " + value_text + "\n", label).child("value").yaml()
                              : YAML::Node(value_text);
  if (!is_config_key(key)) unknown_key(ConfigNode(yaml, label, key), key);
  if (yaml.IsNull()) throw_missing_set_value(key);
  return {key, yaml, label, key};
}

void substitute_setting(YAML::Node root, const std::vector<std::string>& parts, const YAML::Node& value,
                        const std::string& label, const std::string& root_source) {
  YAML::Node node;
  node.reset(root);
  std::string path;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    path += (path.empty() ? "" : ".") + parts[i];
    const YAML::Node& as_const = node;
    const YAML::Node existing = as_const[parts[i]];
    if (existing && !existing.IsMap() && !existing.IsNull()) {
      throw InputError(fmt::format("{}:{}: {}: expected a map, which {} sets a key of", root_source,
                                   existing.Mark().line + 1, path, label));
    }
    YAML::Node next = node[parts[i]];
    node.reset(next);
  }
  node[parts.back()] = YAML::Clone(value);
}

LayeredConfig layer_config(const std::string& text, const std::string& file,
                           const std::vector<ConfigSetting>& sets) {
  const ConfigNode root = ConfigNode::parse(text, file);
  std::set<std::string> seen;
  std::error_code error;
  seen.insert(std::filesystem::weakly_canonical(file, error).string());
  Merged merged = merge(text, root, 0, seen);
  merged.settings.insert(merged.settings.end(), sets.begin(), sets.end());
  const bool sets_description =
      std::any_of(sets.begin(), sets.end(), [](const ConfigSetting& s) { return s.key == "description"; });
  if (!sets.empty() && !sets_description) {
    const std::string name =
        root.yaml().IsMap() && root.has("name") ? root.child("name").scalar() : config_file_stem(file);
    merged.settings.push_back(described(name, sets, "--set", "description"));
  }
  NodeOrigins origins;
  for (const auto& setting : merged.settings) {
    substitute_setting(merged.tree, split(setting.key, '.'), setting.value, setting.label,
                       merged.bottom_source);
    origins[setting.key] = {setting.file, setting.label, setting.value};
  }
  return {ConfigNode(merged.tree, merged.bottom_source, origins), YAML::Dump(merged.tree) + "\n", file};
}

}  // namespace tpusim::workloads
