#pragma once
// A YAML node that knows where it came from (file, line, dotted key), so every problem found while reading a
// config is reported as "file:line: dotted.key: problem" (the ninja convention). Readers ask for typed
// values; a map's keys are checked against the schema the reader passes, unknown ones are errors with a
// suggestion.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "topologies/support/name_table.hpp"

namespace tpusim::workloads {

// Where a subtree substituted into a config was written (a sweep's value): problems inside it are reported at
// this file and key, at the line of the substituted value. The tree holds a copy of the value (YAML::Clone:
// sharing the node would merge yaml-cpp's node pools of every point, which is quadratic), so the original is
// kept here for its lines, and read instead of the copy.
struct NodeOrigin {
  std::string file;
  std::string key_path;  // "vary.mesh.shape[2]"
  YAML::Node value;      // as written in `file`, with its marks
};
using NodeOrigins = std::map<std::string, NodeOrigin>;  // by the dotted config key it replaces

class ConfigNode {
 public:
  ConfigNode(YAML::Node node, std::string file, std::string key_path);
  // A root whose keys listed in `origins` hold values written elsewhere.
  ConfigNode(YAML::Node root, std::string file, NodeOrigins origins);
  ConfigNode(const ConfigNode&) = default;
  // Not assignable: YAML::Node's assignment writes through to the node it refers to, so assigning one
  // ConfigNode to another would rewrite the tree (std::optional<ConfigNode>::emplace replaces one instead).
  ConfigNode& operator=(const ConfigNode&) = delete;

  // Parses YAML text; syntax errors become InputError "file:line: YAML syntax error: ...". A key given twice
  // in one map is an error naming both lines (YAML parsers differ on which one wins, so neither may), and so
  // is nesting deeper than kMaxNestingLevels or a tree that aliases expand past kMaxYamlNodes.
  static ConfigNode parse(const std::string& text, const std::string& file);
  // A value the schema writes for a key a config leaves out (its default), read like a written one.
  static ConfigNode schema_default(const std::string& yaml_text, const std::string& key_path);
  static constexpr int kMaxNestingLevels = 64;
  static constexpr std::size_t kMaxYamlNodes = 1000000;

  const std::string& file() const { return file_; }
  const std::string& key_path() const { return key_path_; }
  const YAML::Node& yaml() const { return node_; }  // for readers of lists (a sweep's values)
  int line() const;                                 // 1-based line of this node
  std::string where() const;                        // "file:line: key.path"
  [[noreturn]] void fail(const std::string& problem) const;

  // Requires a map whose keys are all in `allowed`; the first unknown key is reported at its own line.
  void expect_map(const std::vector<std::string>& allowed) const;
  bool has(const std::string& key) const;
  ConfigNode child(const std::string& key) const;  // fails with "missing key" if absent

  // The same place holding `text` instead: a value computed from what is written there (a size given per
  // mesh axis), read like a written one and reported at its line.
  ConfigNode with_scalar(const std::string& text) const;

  std::string scalar() const;    // fails unless a scalar
  std::int64_t integer() const;  // a whole number
  std::int64_t positive_integer() const;
  double number() const;  // a finite decimal number
  bool boolean() const;   // true/false
  std::string one_of(const std::vector<std::string>& choices) const;
  // One of the table's names, reported as one_of reports it.
  template <class T>
  T choice(const NameTable<T>& table) const {
    return table.parse(one_of(table.names()));
  }
  // Quantities with units (topologies/support/units.hpp); malformed text names the accepted forms, and a
  // figure outside its plausible range names the range.
  std::uint64_t memory_bytes() const;
  double bandwidth_Bps() const;
  double latency_s() const;
  double flops() const;

  // Convenience: the child's value if present, else `fallback`.
  std::optional<ConfigNode> optional_child(const std::string& key) const;
  std::vector<std::string> keys() const;  // map keys in file order
  // A list's item i, located at its own line ("key[i]"); the items of a non-empty list, or a failure
  // "expected a non-empty list of <what>".
  ConfigNode item(std::size_t i) const;
  std::vector<ConfigNode> items(const std::string& what) const;

 private:
  ConfigNode(YAML::Node node, std::string file, std::string key_path, YAML::Mark key_mark,
             std::shared_ptr<const NodeOrigins> origins);
  // The child reached through `key`: located at its origin if it was substituted, else at its key.
  ConfigNode located_child(const std::string& path, const YAML::Node& key, const YAML::Node& value) const;
  YAML::Node node_;
  std::string file_;
  std::string key_path_;
  YAML::Mark mark_;  // of the key when reached through a map (values of null keys have no mark)
  std::shared_ptr<const NodeOrigins> origins_;  // null unless substituted values are present
};

}  // namespace tpusim::workloads
