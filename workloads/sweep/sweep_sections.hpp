#pragma once
// The sections of a sweep file that say what its points set (set, vary, zip, points, exclude; the format is
// sweep_spec.hpp's), read and checked against each other: every key a config key, no key both a section and a
// key inside it, zip groups of vary keys with lists of one length, filters that name varied keys. What needs
// the points themselves (repeated points, filters that match none) is checked when they are listed.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "workloads/config/config_node.hpp"
#include "workloads/sweep/study_file.hpp"

namespace tpusim::workloads {

// One value the sweep file gives one config key, and where.
struct SweepValue {
  std::string key;                 // dotted config key, "mesh.shape"
  std::vector<std::string> parts;  // key split at '.'
  YAML::Node node;                 // as written, with its line
  std::string text;                // sweep_value_text(node)
  std::string label;               // "vary.mesh.shape[2]", "points[1].mesh.shape", "set.model.d_ff"
  int line() const { return node.Mark().line + 1; }
};

// Scalars as written, lists and maps as flow YAML ("{per: batch, value: 16}").
std::string sweep_value_text(const YAML::Node& node);

struct VaryList {
  std::string key;
  std::vector<SweepValue> values;
};

// A partial point of `exclude`: the points with all these values (as texts) are dropped.
struct SweepFilter {
  std::string label;  // "exclude[1]"
  int line = 0;
  std::vector<std::pair<std::string, std::string>> values;  // key, value text
};

struct SweepSections {
  std::vector<SweepValue> settings;  // set: every point
  std::vector<VaryList> vary;        // in file order
  // The product's factors, slowest first: indices into vary, one list alone or a zip group advancing
  // together.
  std::vector<std::vector<std::size_t>> factors;
  std::vector<std::vector<std::string>> zip_groups;  // as written
  std::vector<std::vector<SweepValue>> listed;       // points, in file order
  std::vector<int> listed_lines;
  std::vector<SweepFilter> exclude;
  // The varied keys: vary's in order, then those only points give, in order of appearance.
  std::vector<std::string> varied_keys;
  std::optional<ConfigNode> vary_node, points_node, exclude_node;  // for problems of the whole section
};

// Fails at `at` unless `key` is one the study's points may give (a run config key for a training sweep).
using StudyKeyCheck = std::function<void(const std::string& key, const ConfigNode& at)>;
// Every run config key (config/config_schema.hpp), with the valid keys and a suggestion in the message.
void require_config_key(const std::string& key, const ConfigNode& at);

// `file`'s sections, read by its rows (study_file.hpp) from `root`. InputError "file:line: section[...].key:
// problem".
SweepSections read_sweep_sections(const StudyFile& file, const ConfigNode& root,
                                  const StudyKeyCheck& check_key = require_config_key);

}  // namespace tpusim::workloads
