#include "workloads/report/plot_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "topologies/support/text.hpp"

namespace tpusim::workloads {
namespace {

// A key a point leaves unset (a listed point that sets others) has the base config's value.
constexpr const char* kUnset = "default";

// How a key's values are written, and so how they read.
enum class ValueForm {
  plain,       // a name or a number: read with its key ("fusion none", "batch 512")
  mesh_shape,  // batch:16;model:32, batch:*, from_mapping
  assignment,  // axis=physical;... (a mapping) or dim:axis;... (a layout), or a name (rings)
  topology,    // a preset's name, or kind:dims with options after commas
  faults,      // "" or random:N:SEED
};

struct KeyWords {
  const char* key;
  const char* words;
  ValueForm form;
};

// Keys whose last part does not say what they are, or whose values have a form of their own.
constexpr KeyWords kKeyWords[] = {
    {"mesh.shape", "mesh", ValueForm::mesh_shape},     {"mesh.mapping", "mapping", ValueForm::assignment},
    {"mesh.layout", "layout", ValueForm::assignment},  {"hardware.topology", "topology", ValueForm::topology},
    {"hardware.faults", "faults", ValueForm::faults},  {"model.d_ff", "d_ff", ValueForm::plain},
    {"model.d_model", "d_model", ValueForm::plain},    {"model.d_kv", "d_kv", ValueForm::plain},
    {"collective.op", "collective", ValueForm::plain}, {"collective.bytes", "message size", ValueForm::plain},
};

const KeyWords* entry_of(const std::string& key) {
  for (const auto& entry : kKeyWords) {
    if (key == entry.key) return &entry;
  }
  return nullptr;
}

ValueForm form_of(const std::string& key) {
  const KeyWords* entry = entry_of(key);
  return entry ? entry->form : ValueForm::plain;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// A name of letters, digits and underscores reads with spaces for its underscores: peak_rate, bidir_ring.
std::string name_in_words(const std::string& text) {
  const bool name = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
  if (!name) return text;
  std::string out = text;
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

// A flow map as the sweep writes a map value ("{per: batch, value: 16}"): its (key, value) pairs, or none
// when `text` is not one.
std::vector<std::pair<std::string, std::string>> flow_map(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return pairs;
  for (const auto& item : split(text.substr(1, text.size() - 2), ',')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) return {};
    pairs.emplace_back(trimmed(item.substr(0, colon)), trimmed(item.substr(colon + 1)));
  }
  return pairs;
}

std::string map_in_words(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string per, value;
  std::vector<std::string> parts;
  for (const auto& [k, v] : pairs) {
    if (k == "per") per = v;
    if (k == "value") value = v;
    parts.push_back(k + " " + name_in_words(v));
  }
  // A size given per processor of a mesh axis.
  if (pairs.size() == 2 && !per.empty() && !value.empty()) return fmt::format("{} per {} core", value, per);
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string mesh_shape_in_words(const std::string& value) {
  if (value == "from_mapping") return "mesh from the mapping";
  std::vector<std::string> axes;
  for (const auto& axis : split(value, ';')) {
    const auto colon = axis.find(':');
    if (colon == std::string::npos) return value;
    const std::string size = axis.substr(colon + 1);
    axes.push_back(axis.substr(0, colon) + " " + (size == "*" ? "all" : size));
  }
  return fmt::format("{}", fmt::join(axes, " × "));
}

std::string assignment_in_words(const std::string& value) {
  if (value.find_first_of("=:") == std::string::npos) return name_in_words(value);
  std::vector<std::string> parts;
  for (const auto& part : split(value, ';')) {
    const auto at = part.find_first_of("=:");
    if (at == std::string::npos) return value;
    parts.push_back(part.substr(0, at) + " on " + part.substr(at + 1));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// "torus:4x8,twist_x=y+4" is "4x8 torus, twisted"; "torus:2x2,cores=2" is "2x2 torus, 2 cores per chip".
std::string topology_in_words(const std::string& value) {
  const auto parts = split(value, ',');
  const auto colon = parts.front().find(':');
  if (colon == std::string::npos) return value;
  std::vector<std::string> words = {parts.front().substr(colon + 1) + " " + parts.front().substr(0, colon)};
  bool twisted = false;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& option = parts[i];
    if (option.rfind("cores=", 0) == 0) {
      words.push_back(option.substr(6) + " cores per chip");
    } else if (option.rfind("twist", 0) == 0) {
      if (!twisted) words.push_back("twisted");
      twisted = true;
    } else {
      words.push_back(option);
    }
  }
  return fmt::format("{}", fmt::join(words, ", "));
}

std::string faults_in_words(const std::string& value) {
  if (value.empty()) return "no faults";
  const auto parts = split(value, ':');
  if (parts.size() == 3 && parts[0] == "random")
    return fmt::format("{} random link{} down (seed {})", parts[1], parts[1] == "1" ? "" : "s", parts[2]);
  return value;
}

// Whether a value's words say what they are without their key.
bool speaks_for_itself(const std::string& key, const std::string& value) {
  if (!flow_map(value).empty()) return true;
  switch (form_of(key)) {
    case ValueForm::mesh_shape:
    case ValueForm::topology:
    case ValueForm::faults:
      return true;
    case ValueForm::assignment:
      return value.find_first_of("=:") != std::string::npos;
    case ValueForm::plain:
      break;
  }
  return false;
}

}  // namespace

std::string key_in_words(const std::string& key) {
  if (const KeyWords* entry = entry_of(key)) return entry->words;
  const auto dot = key.rfind('.');
  return name_in_words(dot == std::string::npos ? key : key.substr(dot + 1));
}

std::string value_in_words(const std::string& key, const std::string& value) {
  const auto pairs = flow_map(value);
  if (!pairs.empty()) return map_in_words(pairs);
  switch (form_of(key)) {
    case ValueForm::mesh_shape:
      return value.empty() ? kUnset : mesh_shape_in_words(value);
    case ValueForm::assignment:
      return value.empty() ? kUnset : assignment_in_words(value);
    case ValueForm::topology:
      return value.empty() ? kUnset : topology_in_words(value);
    case ValueForm::faults:
      return faults_in_words(value);
    case ValueForm::plain:
      break;
  }
  return value.empty() ? kUnset : name_in_words(value);
}

std::string setting_in_words(const std::string& key, const std::string& value) {
  const std::string words = value_in_words(key, value);
  return speaks_for_itself(key, value) ? words : key_in_words(key) + " " + words;
}

}  // namespace tpusim::workloads
