#include "workloads/config/config_schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "topologies/support/check.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::workloads {
namespace {

bool is_identifier(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// The top-level keys that are not sections.
std::vector<ConfigKey> run_keys() {
  return {
      ConfigKey("name", "run name: letters, digits, '-', '_' and '.'",
                "Names the run in reports and the default results folder.")
          .computed("the config file's name without .yaml (a preset's name)",
                    [](ConfigReading& r) { r.config.name = config_file_stem(r.config.source); })
          .reads([](const ConfigNode& value, ConfigReading& r) {
            const std::string name = value.scalar();
            if (const std::string problem = plain_name_problem(name, "run name"); !problem.empty())
              value.fail(problem);
            r.config.name = name;
          })
          .reports([](const RunConfig& c) { return c.name; }),
      ConfigKey("description", "text", "Free text shown by tpusim run --list-presets and in results.")
          .absent_means("empty")
          .reads([](const ConfigNode& value, ConfigReading& r) { r.config.description = value.scalar(); })
          .reports([](const RunConfig& c) { return c.description; }),
  };
}

}  // namespace

std::string config_file_stem(const std::string& path) {
  std::string name =
      path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (name.rfind("preset:", 0) == 0) name = name.substr(7);
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

std::optional<ConfigNode> ConfigReading::node(const std::string& dotted_key) const {
  std::optional<ConfigNode> node = root;
  for (const auto& part : split(dotted_key, '.')) {
    const std::optional<ConfigNode> child = node->optional_child(part);
    if (!child) return std::nullopt;
    node.emplace(*child);
  }
  return node;
}

ConfigKey& ConfigKey::needs(std::vector<std::string> keys) {
  dependencies = std::move(keys);
  return *this;
}

ConfigKey& ConfigKey::reads_section(Reader reader, std::vector<std::string> possible_keys) {
  read = std::move(reader);
  whole_section = true;
  section_key_names = std::move(possible_keys);
  return *this;
}

ConfigKey& ConfigKey::with_subkeys(std::string what) {
  subkeys = std::move(what);
  return *this;
}

ConfigKey& ConfigKey::reports(Resolved value, std::string field) {
  resolved = std::move(value);
  result_name = std::move(field);
  return *this;
}

std::string ConfigKey::result_field() const { return result_name.empty() ? name() : result_name; }

const std::vector<ConfigKey>& config_schema() {
  static const std::vector<ConfigKey> rows = [] {
    std::vector<ConfigKey> all = run_keys();
    for (auto section : {hardware_keys, mesh_keys, model_keys, training_keys}) {
      for (auto& row : section()) all.push_back(std::move(row));
    }
    for (std::size_t i = 0; i < all.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) TPUSIM_CHECK(all[i].key != all[j].key);
    }
    return all;
  }();
  return rows;
}

const ConfigKey* find_config_key(const std::string& dotted_key) {
  for (const auto& row : config_schema()) {
    if (row.key == dotted_key) return &row;
  }
  return nullptr;
}

std::vector<std::string> top_level_keys() {
  std::vector<std::string> keys;
  for (const auto& row : config_schema()) {
    const std::string top = row.key.substr(0, row.key.find('.'));
    if (std::find(keys.begin(), keys.end(), top) == keys.end()) keys.push_back(top);
  }
  return keys;
}

std::vector<std::string> section_keys(const std::string& section) {
  std::vector<std::string> keys;
  for (const auto& row : config_schema()) {
    if (row.section() == section) keys.push_back(row.name());
  }
  return keys;
}

std::vector<std::string> config_keys() {
  std::vector<std::string> keys;
  auto add = [&](const std::string& key) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  };
  for (const auto& row : config_schema()) {
    if (!row.section().empty()) add(row.section());
    if (!row.whole_section) add(row.key);
    for (const auto& name : row.section_key_names) add(row.section() + "." + name);
  }
  return keys;
}

bool is_config_key(const std::string& dotted_key) {
  for (const auto& row : config_schema()) {
    const std::string prefix = row.key + ".";
    if (!row.subkeys.empty() && dotted_key.rfind(prefix, 0) == 0) {
      return is_identifier(dotted_key.substr(prefix.size()));
    }
  }
  const auto keys = config_keys();
  return std::find(keys.begin(), keys.end(), dotted_key) != keys.end();
}

std::string config_subkeys_text() {
  std::string text;
  for (const auto& row : config_schema()) {
    if (!row.subkeys.empty()) text += " and " + row.key + "." + row.subkeys;
  }
  return text;
}

}  // namespace tpusim::workloads
