#include "workloads/report/schema_text.hpp"

#include <fmt/format.h>

#include <sstream>

#include "workloads/config/config_layers.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/models/model_kinds.hpp"
#include "workloads/models/model_section.hpp"
#include "workloads/report/report_context.hpp"

namespace tpusim::workloads {
namespace {

constexpr std::size_t kKeyColumn = 33;  // the longest key, hardware.hbm_bandwidth_per_core, and a space
constexpr std::size_t kWidth = 110;

// `text` broken into lines of at most kWidth columns (words permitting), each after `indent` spaces.
std::string wrapped(const std::string& text, std::size_t indent) {
  std::istringstream words(text);
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && indent + line.size() + 1 + word.size() > kWidth) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + std::string(indent, ' ') + line + "\n";
}

// The key and its first line, then the other lines under the first.
void print_entry(std::ostream& out, const std::string& key, const std::vector<std::string>& lines) {
  const std::string first = wrapped(lines.front(), kKeyColumn).substr(kKeyColumn);
  out << fmt::format("{:<{}}", key, kKeyColumn - 1) << " " << first;
  for (std::size_t i = 1; i < lines.size(); ++i) out << wrapped(lines[i], kKeyColumn);
}

}  // namespace

void print_row(std::ostream& out, const KeyDescription& row, const std::vector<std::string>& extra) {
  std::vector<std::string> lines = {row.type};
  lines.insert(lines.end(), extra.begin(), extra.end());
  if (!row.range.empty()) lines.push_back("range: " + row.range);
  lines.push_back(row.absent == KeyAbsent::required ? "required" : "default: " + row.default_text());
  lines.push_back(row.doc);
  print_entry(out, row.key, lines);
}

nlohmann::json row_json(const KeyDescription& row) {
  const bool required = row.absent == KeyAbsent::required;
  return {{"key", row.key},
          {"type", row.type},
          {"range", row.range},
          {"required", required},
          {"default", required ? nlohmann::json(nullptr) : nlohmann::json(row.default_text())},
          {"doc", row.doc}};
}

namespace {

// The kinds using a model key and their defaults ("" = required).
std::vector<std::pair<std::string, std::string>> users_of(const std::string& key) {
  std::vector<std::pair<std::string, std::string>> users;
  for (const auto& kind : model_kinds()) {
    for (const auto& use : kind.keys) {
      if (use.key == key) users.emplace_back(kind.name, use.default_value);
    }
  }
  return users;
}

std::string model_key_default(const std::string& key) {
  const auto users = users_of(key);
  for (const auto& user : users) {
    if (user.second != users.front().second) return "default: depends on the kind (model kinds above)";
  }
  return users.empty() || users.front().second.empty() ? "required" : "default: " + users.front().second;
}

void print_model_kinds(std::ostream& out) {
  out << "\nModel kinds, each with the model keys it takes (a default in parentheses; the others are "
         "required):\n";
  for (const auto& kind : model_kinds()) {
    std::vector<std::string> keys;
    for (const auto& use : kind.keys) {
      keys.push_back(use.key + (use.default_value.empty() ? "" : " (" + use.default_value + ")"));
    }
    print_entry(out, "  " + kind.name,
                {join(keys), kind.description,
                 fmt::format("tensor dimensions {}; default layout {}; example tpusim run --show-preset "
                             "--preset {}",
                             join(kind.dimensions), kind.default_layout, kind.example_preset)});
  }
  out << "\nModel keys:\n";
  for (const auto& key : model_key_table()) {
    std::vector<std::string> lines = {key.type};
    if (!key.range.empty()) lines.push_back("range: " + key.range);
    lines.push_back(model_key_default(key.name));
    std::vector<std::string> kinds;
    for (const auto& user : users_of(key.name)) kinds.push_back(user.first);
    lines.push_back("used by " + join(kinds));
    lines.push_back(key.doc);
    print_entry(out, "model." + key.name, lines);
  }
  out << "\n";
}

}  // namespace

void print_schema(std::ostream& out) {
  out << "tpusim run config schema: every key, its type, its default and what it means.\n"
         "A config is YAML with one map per section (hardware: {topology: tpu-v2-pod}); sweeps name keys by "
         "their\ndotted names. A key left out takes its default; unknown keys and keys given twice are "
         "errors.\n"
         "Configs that follow the pod they run on (tpusim sweep over topologies): mesh.shape may leave one "
         "size to "
         "the\ntopology (batch:*;model:32) or take every size from mesh.mapping (from_mapping); a model size "
         "may be "
         "given\nper processor of a mesh axis, {per: model, value: 8192} (weak scaling: 8192 x the axis's "
         "size; per: "
         "cores for\nevery core), where a plain number stays fixed (strong scaling). The resolved config in "
         "summary.json holds\nthe sizes these give.\n" +
             fmt::format(
                 "A config may start from another: base: PRESET, or base: FILE (relative to the config's "
                 "folder), whose\nkeys it changes; a base may have a base of its own, at most {} in a "
                 "chain.\n",
                 kMaxBaseDepth);
  std::string section = "-";
  for (const auto& row : config_schema()) {
    if (row.section() != section) {
      section = row.section();
      out << "\n" << (section.empty() ? "Top level" : section + ":") << "\n";
    }
    std::vector<std::string> subkeys;
    if (!row.subkeys.empty()) subkeys.push_back("keys: " + row.subkeys);
    print_row(out, row, subkeys);
    if (row.whole_section) print_model_kinds(out);
  }
}

nlohmann::json schema_json() {
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& row : config_schema()) {
    keys.push_back(row_json(row));
    keys.back()["result"] = (row.section().empty() ? "" : row.section() + ".") + row.result_field();
    if (!row.subkeys.empty()) keys.back()["subkeys"] = row.subkeys;
  }
  nlohmann::json kinds = nlohmann::json::array();
  for (const auto& kind : model_kinds()) {
    nlohmann::json uses = nlohmann::json::array();
    for (const auto& use : kind.keys) {
      uses.push_back({{"key", "model." + use.key},
                      {"default", use.default_value.empty() ? nlohmann::json(nullptr)
                                                            : nlohmann::json(use.default_value)}});
    }
    kinds.push_back({{"name", kind.name},
                     {"description", kind.description},
                     {"keys", uses},
                     {"dimensions", kind.dimensions},
                     {"default_layout", kind.default_layout},
                     {"example_preset", kind.example_preset}});
  }
  nlohmann::json model_keys = nlohmann::json::array();
  for (const auto& key : model_key_table()) {
    nlohmann::json used_by = nlohmann::json::array();
    for (const auto& user : users_of(key.name)) used_by.push_back(user.first);
    model_keys.push_back({{"key", "model." + key.name},
                          {"type", key.type},
                          {"range", key.range},
                          {"doc", key.doc},
                          {"used_by", used_by}});
  }
  return with_report_context({{"keys", keys}, {"model_kinds", kinds}, {"model_keys", model_keys}},
                             format::kConfigSchema, "run", {{"schema", true}});
}

}  // namespace tpusim::workloads
