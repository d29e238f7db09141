#include "workloads/config/config_node.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"
#include "workloads/config/comma_split.hpp"

namespace tpusim::workloads {
namespace {

// YAML's limit on a key written without '?' (YAML 1.2, 7.4.2); past it yaml-cpp says only "illegal map value".
constexpr std::size_t kMaxYamlKeyChars = 1024;

// A config is text: YAML allows tab, line feed and carriage return of the C0 controls, and yaml-cpp reports
// the others (a NUL from a binary file or a bad copy) as odd escapes or keys far from the byte.
void check_plain_text(const std::string& text, const std::string& file) {
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') {
      ++line;
      line_start = i + 1;
    } else if ((byte < 0x20 && byte != '\t' && byte != '\r') || byte == 0x7f) {
      throw InputError(fmt::format("{}:{}: a control character (byte 0x{:02x}) at column {}: a config is "
                                   "plain text",
                                   file, line, byte, i - line_start + 1));
    }
  }
}

// The length of the key on 0-based line `line` of `text` (what comes before its first ": "), 0 if none.
std::size_t key_length_at(const std::string& text, int line) {
  std::size_t start = 0;
  for (int l = 0; l < line && start != std::string::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos) return 0;
  const std::string row = text.substr(start, text.find('\n', start) - start);
  const std::size_t key_start = row.find_first_not_of(" -");
  const std::size_t colon = row.find(':', key_start == std::string::npos ? 0 : key_start);
  return key_start == std::string::npos || colon == std::string::npos ? 0 : colon - key_start;
}

const char* type_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
      return "empty";
    default:
      return "a scalar";
  }
}

int line_of(const YAML::Node& node) { return node.Mark().is_null() ? 1 : node.Mark().line + 1; }

// Walks the whole tree once: duplicate keys, specs split at commas, nesting and size (aliases can make a short
// text a huge tree, which every later walk would pay for) are reported here, before anything reads the tree.
void check_tree(const YAML::Node& node, const std::string& file, const std::string& path, int depth,
                std::size_t& nodes) {
  if (++nodes > ConfigNode::kMaxYamlNodes) {
    throw InputError(
        fmt::format("{}:{}: the YAML has more than {} values (aliases count each time they are used)", file,
                    line_of(node), ConfigNode::kMaxYamlNodes));
  }
  if (depth > ConfigNode::kMaxNestingLevels) {
    throw InputError(fmt::format("{}:{}: YAML nested too deeply: more than {} levels of maps and lists", file,
                                 line_of(node), ConfigNode::kMaxNestingLevels));
  }
  check_comma_split(node, file, path);
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      check_tree(node[i], file, fmt::format("{}[{}]", path, i), depth + 1, nodes);
  }
  if (!node.IsMap()) return;
  std::map<std::string, int> lines;  // of each scalar key so far
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first, value = it->second;  // copies: `it->` is a temporary proxy
    const std::string name = key.IsScalar() ? key.Scalar() : "";
    const std::string child = path.empty() ? name : path + "." + name;
    if (key.IsScalar()) {
      const auto [first, inserted] = lines.emplace(name, line_of(key));
      if (!inserted) {
        const std::string where = first->second == line_of(key)
                                      ? fmt::format(" on line {}", first->second)
                                      : fmt::format(", at lines {} and {}", first->second, line_of(key));
        throw InputError(fmt::format("{}:{}: {}: given twice{}; keep one", file, line_of(key), child, where));
      }
    }
    check_tree(key, file, child, depth + 1, nodes);
    check_tree(value, file, child, depth + 1, nodes);
  }
}

}  // namespace

ConfigNode::ConfigNode(YAML::Node node, std::string file, std::string key_path)
    : ConfigNode(node, std::move(file), std::move(key_path), node.Mark(), nullptr) {}

ConfigNode::ConfigNode(YAML::Node root, std::string file, NodeOrigins origins)
    : ConfigNode(root, std::move(file), "", root.Mark(),
                 origins.empty() ? nullptr : std::make_shared<const NodeOrigins>(std::move(origins))) {}

ConfigNode::ConfigNode(YAML::Node node, std::string file, std::string key_path, YAML::Mark key_mark,
                       std::shared_ptr<const NodeOrigins> origins)
    : node_(node),
      file_(std::move(file)),
      key_path_(std::move(key_path)),
      mark_(key_mark),
      origins_(std::move(origins)) {}

ConfigNode ConfigNode::located_child(const std::string& path, const YAML::Node& key,
                                     const YAML::Node& value) const {
  if (origins_) {
    const auto origin = origins_->find(path);
    // A substituted value has no key of its own in its file: it is located at the value.
    if (origin != origins_->end()) {
      const YAML::Node& original = origin->second.value;
      return ConfigNode(original, origin->second.file, origin->second.key_path, original.Mark(), origins_);
    }
  }
  return ConfigNode(value, file_, path, key.Mark(), origins_);
}

ConfigNode ConfigNode::parse(const std::string& text, const std::string& file) {
  check_plain_text(text, file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& error) {
    throw InputError(fmt::format("{}:{}: YAML nested too deeply: more than {} levels of maps and lists", file,
                                 error.mark.line + 1, kMaxNestingLevels));
  } catch (const YAML::Exception& error) {
    const std::size_t key_chars = key_length_at(text, error.mark.line);
    if (key_chars > kMaxYamlKeyChars) {
      throw InputError(fmt::format("{}:{}: a key of {} characters: YAML allows at most {} in a key", file,
                                   error.mark.line + 1, key_chars, kMaxYamlKeyChars));
    }
    throw InputError(fmt::format("{}:{}: YAML syntax error: {}", file, error.mark.line + 1, error.msg));
  }
  std::size_t nodes = 0;
  check_tree(root, file, "", 0, nodes);
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  return ConfigNode(root, file, "");
}

ConfigNode ConfigNode::schema_default(const std::string& yaml_text, const std::string& key_path) {
  return ConfigNode(YAML::Load(yaml_text), "(schema default)", key_path);
}

int ConfigNode::line() const { return mark_.is_null() ? 1 : mark_.line + 1; }

std::string ConfigNode::where() const {
  if (key_path_.empty()) return fmt::format("{}:{}", file_, line());
  return fmt::format("{}:{}: {}", file_, line(), key_path_);
}

void ConfigNode::fail(const std::string& problem) const {
  throw InputError(fmt::format("{}: {}", where(), problem));
}

void ConfigNode::expect_map(const std::vector<std::string>& allowed) const {
  if (!node_.IsMap())
    fail(fmt::format("expected a map with keys {}, found {}", join(allowed), type_name(node_)));
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.Scalar();
    bool known = false;
    for (const auto& name : allowed) known = known || name == key;
    if (!known) {
      const std::string path = key_path_.empty() ? key : key_path_ + "." + key;
      if (origins_ && origins_->count(path) != 0) {
        located_child(path, it->first, it->second)
            .fail(fmt::format("{} is not a key here{}; valid keys are {}", path, did_you_mean(key, allowed),
                              join(allowed)));
      }
      throw InputError(fmt::format("{}:{}: {}: unknown key{}; valid keys are {}", file_,
                                   it->first.Mark().line + 1, path, did_you_mean(key, allowed),
                                   join(allowed)));
    }
  }
}

bool ConfigNode::has(const std::string& key) const {
  if (!node_.IsMap()) return false;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.Scalar() == key) return true;
  }
  return false;
}

ConfigNode ConfigNode::child(const std::string& key) const {
  const std::string path = key_path_.empty() ? key : key_path_ + "." + key;
  if (node_.IsMap()) {
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.Scalar() == key) return located_child(path, it->first, it->second);
    }
  }
  throw InputError(fmt::format("{}: missing key '{}'", where(), path));
}

std::optional<ConfigNode> ConfigNode::optional_child(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return child(key);
}

std::vector<std::string> ConfigNode::keys() const {
  std::vector<std::string> names;
  if (!node_.IsMap()) return names;
  for (auto it = node_.begin(); it != node_.end(); ++it) names.push_back(it->first.Scalar());
  return names;
}

ConfigNode ConfigNode::item(std::size_t i) const {
  return ConfigNode(node_[i], file_, fmt::format("{}[{}]", key_path_, i));
}

std::vector<ConfigNode> ConfigNode::items(const std::string& what) const {
  if (!node_.IsSequence() || node_.size() == 0) fail("expected a non-empty list of " + what);
  std::vector<ConfigNode> out;
  for (std::size_t i = 0; i < node_.size(); ++i) out.push_back(item(i));
  return out;
}

ConfigNode ConfigNode::with_scalar(const std::string& text) const {
  return ConfigNode(YAML::Node(text), file_, key_path_, mark_, origins_);
}

std::string ConfigNode::scalar() const {
  if (!node_.IsScalar()) fail(fmt::format("expected a value, found {}", type_name(node_)));
  return node_.Scalar();
}

std::int64_t ConfigNode::integer() const {
  const std::string text = scalar();
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') fail(fmt::format("'{}' is not a whole number", text));
  // strtoll saturates out-of-range text at LLONG_MIN/MAX; taking that as the value would run a different
  // config from the one written.
  if (errno == ERANGE) fail(fmt::format("{} is out of range", text));
  return value;
}

std::int64_t ConfigNode::positive_integer() const {
  const std::int64_t value = integer();
  if (value < 1) fail(fmt::format("{} must be at least 1", value));
  return value;
}

namespace {
template <typename Parse>
auto parse_with_location(const ConfigNode& node, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const InputError& error) {
    node.fail(error.what());
  }
}
}  // namespace

double ConfigNode::number() const { return parse_with_location(*this, scalar(), parse_plain_number); }

bool ConfigNode::boolean() const {
  const std::string text = scalar();
  if (text == "true") return true;
  if (text == "false") return false;
  fail(fmt::format("'{}' is not a boolean: expected true or false", text));
}

std::string ConfigNode::one_of(const std::vector<std::string>& choices) const {
  const std::string text = scalar();
  for (const auto& choice : choices) {
    if (choice == text) return text;
  }
  fail(fmt::format("'{}' is not valid{}; valid values are {}", text, did_you_mean(text, choices),
                   join(choices)));
}


std::uint64_t ConfigNode::memory_bytes() const {
  return parse_with_location(*this, scalar(), parse_memory_bytes);
}
double ConfigNode::bandwidth_Bps() const { return parse_with_location(*this, scalar(), parse_bandwidth_Bps); }
double ConfigNode::latency_s() const { return parse_with_location(*this, scalar(), parse_latency_s); }
double ConfigNode::flops() const { return parse_with_location(*this, scalar(), parse_flops); }

}  // namespace tpusim::workloads
