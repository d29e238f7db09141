#include "workloads/config/config_parser.hpp"

#include <set>

#include "topologies/support/check.hpp"
#include "topologies/support/text_file.hpp"
#include "workloads/config/config_node.hpp"

namespace tpusim::workloads {
namespace {

using Absent = ConfigKey::Absent;

// Reads every row of the schema into one RunConfig: a key's `needs` first, whatever their place in the
// table, then its value, its default or its fallback. Each section's keys are checked against its rows
// before the first of them is read, so an unknown key is reported before what depends on it.
class Reader {
 public:
  Reader(const ConfigNode& root, RunConfig& config) : reading_{root, config} {}

  void read_all() {
    reading_.root.expect_map(top_level_keys());
    for (const auto& row : config_schema()) resolve(row);
  }

 private:
  void resolve(const ConfigKey& row) {
    if (done_.count(row.key) != 0) return;
    TPUSIM_CHECK(started_.insert(row.key).second);  // the rows' needs form a cycle
    const ConfigNode& root = reading_.root;
    const std::optional<ConfigNode> section = section_of(row);
    const std::optional<ConfigNode> value =
        row.whole_section ? section : section ? section->optional_child(row.name()) : std::nullopt;
    if (!value && row.absent == Absent::required) {
      // Throws "missing key", naming the section when it is missing too.
      if (section) {
        section->child(row.name());
      } else {
        root.child(row.section());
      }
      TPUSIM_CHECK(false);
    }
    if (value || row.absent == Absent::default_value || row.absent == Absent::computed) {
      for (const auto& need : row.dependencies) {
        const ConfigKey* needed = find_config_key(need);
        TPUSIM_CHECK(needed != nullptr);
        resolve(*needed);
      }
    }
    RunConfig& config = reading_.config;
    if (value) {
      row.read(*value, reading_);
      config.locations[row.key] = value->where();
    } else if (row.absent == Absent::default_value) {
      row.read(ConfigNode::schema_default(row.default_value, row.key), reading_);
      record_default(row, section);
    } else if (row.absent == Absent::computed) {
      row.fallback(reading_);
      record_default(row, section);
    } else {
      TPUSIM_CHECK(row.absent == Absent::nothing);
    }
    done_.insert(row.key);
  }

  // The section holding the row's key (the root for a top-level key), its keys checked; nullopt if absent.
  std::optional<ConfigNode> section_of(const ConfigKey& row) {
    const std::string name = row.section();
    if (name.empty()) return reading_.root;
    std::optional<ConfigNode> node = reading_.node(name);
    // A section read whole has that one row, whose reader checks its keys.
    if (node && !row.whole_section && checked_.insert(name).second) node->expect_map(section_keys(name));
    return node;
  }

  // Where a default came from, for errors found when the model is built: "file:4: mesh (default layout ...)".
  void record_default(const ConfigKey& row, const std::optional<ConfigNode>& section) {
    const nlohmann::json value = row.resolved(reading_.config);
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    reading_.config.locations[row.key] =
        (section ? *section : reading_.root).where() + " (default " + row.name() + " " + text + ")";
  }

  ConfigReading reading_;
  std::set<std::string> started_, done_, checked_;
};

// Rows replace every field; the hardware rows always do (the topology has a default, the device a fallback).
RunConfig unread_config(const std::string& file, const std::string& yaml_text) {
  const topo::LinkParams unset_link(1, 0);
  return RunConfig{"",
                   "",
                   file,
                   yaml_text,
                   HardwareConfig{topo::Topology("unset", {1}, false, 1, unset_link, unset_link),
                                  mtf::DeviceModel::tpu_v2_core(),
                                  {}},
                   {},
                   {},
                   {},
                   {},
                   {}};
}

}  // namespace

RunConfig parse_run_config(const std::string& yaml_text, const std::string& file) {
  return parse_run_config(ConfigNode::parse(yaml_text, file), yaml_text);
}

RunConfig parse_run_config(const ConfigNode& root, const std::string& yaml_text) {
  RunConfig config = unread_config(root.file(), yaml_text);
  Reader(root, config).read_all();
  return config;
}

RunConfig load_run_config_file(const std::string& path) {
  return parse_run_config(read_input_file(path, "config file"), path);
}

}  // namespace tpusim::workloads
