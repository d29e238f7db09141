#include "workloads/sweep/sweep_spec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text_file.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/config/preset_catalog.hpp"

namespace tpusim::workloads {
namespace {

const std::vector<std::string> kSweepKeys = {"name", "description", "base", "vary", "output"};

// A vary entry with its YAML values, kept for substitution into the base config.
struct VaryEntry {
  std::string key;
  std::vector<std::string> parts;  // key split at '.'
  std::vector<YAML::Node> values;
  std::vector<std::string> texts;
};

std::string value_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

std::string stem(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

bool looks_like_path(const std::string& base) {
  const auto ends_with = [&](const std::string& suffix) {
    return base.size() >= suffix.size() &&
           base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return base.find('/') != std::string::npos || ends_with(".yaml") || ends_with(".yml");
}

struct BaseConfig {
  std::string text;
  std::string source;
};

BaseConfig read_base(const ConfigNode& node, const std::string& sweep_file) {
  const std::string base = node.scalar();
  if (base.empty()) node.fail("must name a preset or a config file");
  try {
    if (!looks_like_path(base)) return {preset_text(base), preset_source(base)};
    const auto slash = sweep_file.find_last_of('/');
    const std::string path =
        base[0] == '/' || slash == std::string::npos ? base : sweep_file.substr(0, slash + 1) + base;
    BaseConfig config{read_input_file(path, "config file"), path};
    ConfigNode::parse(config.text, config.source);  // YAML syntax errors, located in the base
    return config;
  } catch (const InputError& error) {
    node.fail(error.what());
  }
}

std::vector<VaryEntry> read_vary(const ConfigNode& vary, const std::string& file) {
  if (!vary.yaml().IsMap() || vary.yaml().size() == 0)
    vary.fail("expected a map from config keys (such as mesh.shape) to lists of values");
  std::vector<VaryEntry> entries;
  const auto keys = config_keys();
  for (const auto& key : vary.keys()) {
    const ConfigNode list = vary.child(key);
    if (!is_config_key(key)) {
      list.fail(
          fmt::format("'{}' is not a config key{}; valid keys are {}{}", key, did_you_mean(key, keys),
                      join(keys), config_subkeys_text()));
    }
    for (const auto& earlier : entries) {
      const bool nested = key.rfind(earlier.key + ".", 0) == 0 || earlier.key.rfind(key + ".", 0) == 0;
      if (nested)
        list.fail(fmt::format("overlaps vary.{}: vary a section or keys inside it, not both", earlier.key));
    }
    if (!list.yaml().IsSequence()) list.fail("expected a list of values, such as [a, b]");
    if (list.yaml().size() == 0) list.fail("the list of values is empty");
    VaryEntry entry;
    entry.key = key;
    entry.parts = split(key, '.');
    for (std::size_t i = 0; i < list.yaml().size(); ++i) {
      const YAML::Node value = list.yaml()[i];
      const std::string text = value_text(value);
      for (std::size_t j = 0; j < entry.texts.size(); ++j) {
        if (entry.texts[j] == text) {
          throw InputError(fmt::format("{}:{}: vary.{}[{}]: {} repeats vary.{}[{}]", file,
                                       value.Mark().line + 1, key, i, text, key, j));
        }
      }
      entry.values.push_back(value);
      entry.texts.push_back(text);
    }
    entries.push_back(entry);
  }
  return entries;
}

// Puts a copy of `value` at the dotted key of `root`, making missing sections. A copy, because assigning the
// sweep file's own node would merge yaml-cpp's node pools of the sweep and of every point's tree, which made
// checking a sweep quadratic in its points. The parser reads the original (NodeOrigin::value), with its
// lines in the sweep file.
void substitute(YAML::Node root, const VaryEntry& entry, const YAML::Node& value,
                const std::string& base_source) {
  YAML::Node node;
  node.reset(root);
  std::string path;
  for (std::size_t i = 0; i + 1 < entry.parts.size(); ++i) {
    path += (path.empty() ? "" : ".") + entry.parts[i];
    const YAML::Node& as_const = node;
    const YAML::Node existing = as_const[entry.parts[i]];
    if (existing && !existing.IsMap() && !existing.IsNull()) {
      throw InputError(fmt::format("{}:{}: {}: expected a map, which vary.{} sets a key of", base_source,
                                   existing.Mark().line + 1, path, entry.key));
    }
    YAML::Node next = node[entry.parts[i]];
    node.reset(next);
  }
  node[entry.parts.back()] = YAML::Clone(value);
}

class PointBuilder {
 public:
  PointBuilder(const std::vector<VaryEntry>& entries, const BaseConfig& base, std::string sweep_file)
      : entries_(entries), base_(base), sweep_file_(std::move(sweep_file)) {}

  // The base with the chosen value of each listed entry (index per entry, -1 = keep the base's).
  RunConfig build(const std::vector<int>& choice) const {
    YAML::Node root = YAML::Load(base_.text);
    if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
    if (!root.IsMap())
      throw InputError(fmt::format("{}:1: expected a config (a map of sections)", base_.source));
    NodeOrigins origins;
    for (std::size_t a = 0; a < entries_.size(); ++a) {
      if (choice[a] < 0) continue;
      substitute(root, entries_[a], entries_[a].values[choice[a]], base_.source);
      origins[entries_[a].key] = {sweep_file_, fmt::format("vary.{}[{}]", entries_[a].key, choice[a]),
                                  entries_[a].values[choice[a]]};
    }
    return parse_run_config(ConfigNode(root, base_.source, origins), YAML::Dump(root) + "\n");
  }

  // A point's problem, located at the value that causes it (see sweep_spec.hpp).
  [[noreturn]] void fail(const std::vector<int>& choice, const InputError& error,
                         const std::string& point) const {
    const std::string message = error.what();
    if (message.rfind(sweep_file_ + ":", 0) == 0) throw error;
    // The first value that is wrong with the base alone is the culprit; otherwise the combination is, and
    // the last value of the point stands for it.
    std::size_t culprit = entries_.size() - 1;
    std::string problem = message;
    bool alone = false;
    for (std::size_t a = 0; a < entries_.size() && !alone; ++a) {
      std::vector<int> single(entries_.size(), -1);
      single[a] = choice[a];
      try {
        build(single);
      } catch (const InputError& solo) {
        culprit = a;
        problem = solo.what();
        alone = true;
        if (problem.rfind(sweep_file_ + ":", 0) == 0) throw solo;
      }
    }
    const auto& entry = entries_[culprit];
    const int line = entry.values[choice[culprit]].Mark().line + 1;
    const std::string context = alone || entries_.size() == 1 ? "" : fmt::format("in point {}: ", point);
    throw InputError(fmt::format("{}:{}: vary.{}[{}]: {}{}", sweep_file_, line, entry.key, choice[culprit],
                                 context, problem));
  }

 private:
  const std::vector<VaryEntry>& entries_;
  const BaseConfig& base_;
  std::string sweep_file_;
};

}  // namespace

std::string SweepPoint::describe(const std::vector<SweepAxis>& axes) const {
  return describe_values(axes, values);
}

std::string describe_values(const std::vector<SweepAxis>& axes, const std::vector<std::string>& values) {
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < axes.size() && a < values.size(); ++a)
    parts.push_back(axes[a].key + "=" + values[a]);
  return join(parts);
}

Sweep parse_sweep(const std::string& yaml_text, const std::string& file) {
  const ConfigNode root = ConfigNode::parse(yaml_text, file);
  root.expect_map(kSweepKeys);
  Sweep sweep;
  sweep.source = file;
  sweep.name = stem(file);
  if (auto n = root.optional_child("name")) {
    sweep.name = n->scalar();
    for (char c : sweep.name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
        n->fail(fmt::format("'{}' is not a sweep name: use letters, digits, '-', '_' and '.'", sweep.name));
    }
    if (sweep.name.empty() || sweep.name[0] == '.')
      n->fail("a sweep name must not be empty or start with '.'");
  }
  if (auto n = root.optional_child("description")) sweep.description = n->scalar();
  sweep.output_dir = "results/" + sweep.name;
  if (auto n = root.optional_child("output")) {
    sweep.output_dir = n->scalar();
    if (sweep.output_dir.empty()) n->fail("must not be empty");
  }
  const ConfigNode base_node = root.child("base");
  const BaseConfig base = read_base(base_node, file);
  sweep.base = base_node.scalar();
  sweep.base_source = base.source;
  const std::vector<VaryEntry> entries = read_vary(root.child("vary"), file);

  std::size_t count = 1;
  for (const auto& entry : entries) {
    sweep.axes.push_back({entry.key, entry.texts});
    count *= entry.values.size();
    if (count > static_cast<std::size_t>(kMaxSweepPoints)) {
      root.child("vary").fail(
          fmt::format("the product of the value lists has more than {} points", kMaxSweepPoints));
    }
  }

  const PointBuilder builder(entries, base, file);
  std::vector<int> choice(entries.size(), 0);
  for (std::size_t index = 0; index < count; ++index) {
    std::vector<std::string> values;
    for (std::size_t a = 0; a < entries.size(); ++a) values.push_back(entries[a].texts[choice[a]]);
    auto config = [&] {
      try {
        return builder.build(choice);
      } catch (const InputError& error) {
        builder.fail(choice, error, describe_values(sweep.axes, values));
      }
    };
    sweep.points.push_back(SweepPoint{static_cast<int>(index), values, config()});
    // Odometer: the last key turns fastest.
    for (std::size_t a = entries.size(); a-- > 0;) {
      if (++choice[a] < static_cast<int>(entries[a].values.size())) break;
      choice[a] = 0;
    }
  }
  return sweep;
}

Sweep load_sweep_file(const std::string& path) {
  return parse_sweep(read_input_file(path, "sweep file"), path);
}

}  // namespace tpusim::workloads
