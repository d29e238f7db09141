#pragma once
// A run config in layers, as researchers change one thing at a time: a config may start from a preset or
// another config (`base: lm-s5`, or `base: my-run.yaml` relative to the file) and write only the keys it
// changes, and the command line's `--set key=value` changes keys of either. Each value keeps the place it
// was written, so a problem is reported in the file (or the --set) that wrote it, at its line.
//
// Layers merge key by key: a section a config writes changes only the keys it names; a key's value (a list,
// a size per mesh axis) replaces the base's whole. A derived config is a run of its own: unless it says,
// its name is its file's (so its results never replace its base's) and its description says what it
// changed over its base; --set values also replace the description with what they change.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "workloads/config/config_node.hpp"

namespace tpusim::workloads {

// A base may itself have a base, up to this many in a chain: a longer chain is a loop (the files name each
// other) or a mistake.
inline constexpr int kMaxBaseDepth = 8;

// One key changed over a base: a key of the config's own file, or a --set.
struct ConfigSetting {
  std::string key;    // dotted config key, "model.d_ff"
  YAML::Node value;   // as written, with its line
  std::string file;   // the file that wrote it, or "--set"
  std::string label;  // the key as its file spells it, for messages
};

// The text of a config a `base:` names, and where it came from.
struct BaseConfig {
  std::string text;
  std::string source;  // its file, or workloads/presets/NAME.yaml
};

// The config `base_node` names: a preset, or a config file relative to `file` (checked to be YAML and not a
// sweep file); problems located at `base_node`.
BaseConfig read_base_config(const ConfigNode& base_node, const std::string& file);

// Whether a `base:` names a config file (a path, or a name ending .yaml or .yml) rather than a preset.
bool names_a_config_file(const std::string& base);

// `--set key=value` split at its first '=' (InputError when there is none, or no key before it).
struct SetOption {
  std::string key;
  std::string value;  // as written, YAML
};
SetOption split_set_option(const std::string& text);
// The InputError of a --set with nothing after its '='.
[[noreturn]] void throw_missing_set_value(const std::string& key);

// `--set key=value`: the value is YAML ("[3, 4, 6, 3]", "batch:16;model:32", "{per: model, value: 64}"),
// the key a config key (tpusim run --schema). InputError naming the option otherwise.
ConfigSetting parse_set_option(const std::string& text);

// Puts a copy of `value` at the dotted key `parts` of `root`, making missing sections; a non-map on the way
// is an InputError at `root_source` naming `label`. A copy, because assigning another tree's node would
// merge yaml-cpp's node pools (quadratic over a sweep's points); the original stays in the NodeOrigin.
void substitute_setting(YAML::Node root, const std::vector<std::string>& parts, const YAML::Node& value,
                        const std::string& label, const std::string& root_source);

// A config file's keys (`text`, read from `file`) over its base's when it has `base:`, then `sets` over
// both. The `search:` section, which only tpusim search reads, is left out of the merged tree.
struct LayeredConfig {
  ConfigNode root;     // the merged tree, each changed key located where it was written
  std::string text;    // the merged tree as YAML: what determines the result (its hash, summary.json)
  std::string source;  // the config file (or preset) the user named
};
LayeredConfig layer_config(const std::string& text, const std::string& file,
                           const std::vector<ConfigSetting>& sets);

}  // namespace tpusim::workloads
