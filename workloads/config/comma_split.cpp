#include "workloads/config/comma_split.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::workloads {
namespace {

// A plain (unquoted) scalar "key=value" whose key a topology spec takes: quoting it says it is meant whole.
bool is_spec_piece(const YAML::Node& node) {
  if (!node.IsScalar() || node.Tag() != "?") return false;
  const std::string& text = node.Scalar();
  const auto eq = text.find('=');
  if (eq == std::string::npos) return false;
  const auto& keys = topo::topology_spec_keys();
  return std::find(keys.begin(), keys.end(), text.substr(0, eq)) != keys.end();
}

[[noreturn]] void fail(const std::string& file, const YAML::Node& piece, const std::string& key,
                       const std::string& spec, const std::string& quoted) {
  throw InputError(fmt::format(
      "{}:{}: {}: '{}' is a piece of the topology spec '{}', which YAML split at its commas; quote specs "
      "that contain commas, e.g. {}",
      file, piece.Mark().line + 1, key, piece.Scalar(), spec, quoted));
}

void check_list(const YAML::Node& list, const std::string& file, const std::string& path) {
  for (std::size_t i = 1; i < list.size(); ++i) {
    if (!is_spec_piece(list[i]) || !list[i - 1].IsScalar()) continue;
    std::string spec = list[i - 1].Scalar();
    for (std::size_t j = i; j < list.size() && is_spec_piece(list[j]); ++j) spec += "," + list[j].Scalar();
    fail(file, list[i], fmt::format("{}[{}]", path, i), spec, fmt::format("['{}', ...]", spec));
  }
}

// In a map the pieces become keys without values, after the key whose value they continue. (Iterators, not
// YAML::Node variables: assigning a YAML::Node writes through to the node it refers to.)
void check_map(const YAML::Node& map, const std::string& file, const std::string& path) {
  for (auto previous = map.begin(), it = map.begin(); it != map.end(); previous = it++) {
    if (it == map.begin() || !is_spec_piece(it->first) || !it->second.IsNull()) continue;
    if (!previous->first.IsScalar() || !previous->second.IsScalar()) continue;
    std::string spec = previous->second.Scalar();
    for (auto piece = it; piece != map.end() && is_spec_piece(piece->first) && piece->second.IsNull();
         ++piece)
      spec += "," + piece->first.Scalar();
    const std::string name = previous->first.Scalar();
    fail(file, it->first, path.empty() ? name : path + "." + name, spec,
         fmt::format("{{{}: '{}'}}", name, spec));
  }
}

}  // namespace

void check_comma_split(const YAML::Node& node, const std::string& file, const std::string& path) {
  if (node.Style() != YAML::EmitterStyle::Flow) return;  // a block collection is split at lines, not commas
  if (node.IsSequence()) check_list(node, file, path);
  if (node.IsMap()) check_map(node, file, path);
}

}  // namespace tpusim::workloads
