#include "workloads/sweep/folder_json.hpp"

#include <fmt/format.h>

#include "workloads/sweep/content_hash.hpp"

namespace tpusim::workloads {
namespace {

constexpr const char* kChecksumKey = "checksum";

// How deep the text nests, counted without parsing it: nlohmann::json dumps (and so checks) recursively.
int nesting_depth(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

std::string canonical_text(const nlohmann::json& document) {
  return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string checksum_of(const nlohmann::json& document) {
  if (!document.is_object() || !document.contains(kChecksumKey))
    return ContentHash().add(canonical_text(document)).hex();
  nlohmann::json rest = document;
  rest.erase(kChecksumKey);
  return ContentHash().add(canonical_text(rest)).hex();
}

nlohmann::json with_checksum(nlohmann::json document) {
  document[kChecksumKey] = checksum_of(document);
  return document;
}

bool checksum_matches(const nlohmann::json& document) {
  if (!document.is_object()) return false;
  const auto checksum = document.find(kChecksumKey);
  return checksum != document.end() && checksum->is_string() &&
         checksum->get<std::string>() == checksum_of(document);
}

FolderJson parse_folder_json(const std::string& text) {
  FolderJson parsed;
  if (text.size() > kMaxFolderJsonBytes) {
    parsed.problem = fmt::format("is larger than {} MiB", kMaxFolderJsonBytes >> 20);
  } else if (nesting_depth(text) > kMaxFolderJsonDepth) {
    parsed.problem = fmt::format("nests deeper than {} levels", kMaxFolderJsonDepth);
  } else {
    parsed.document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (parsed.document.is_discarded()) {
      parsed.problem = "is not JSON (cut short or damaged)";
    } else if (!parsed.document.is_object()) {
      parsed.problem = "is not a JSON object";
    }
  }
  if (!parsed.problem.empty()) parsed.document = nullptr;
  return parsed;
}

namespace {

bool all_strings(const nlohmann::json& value) {
  if (!value.is_array()) return false;
  for (const auto& item : value) {
    if (!item.is_string()) return false;
  }
  return true;
}

bool holds(const nlohmann::json& value, FieldKind kind) {
  switch (kind) {
    case FieldKind::text:
      return value.is_string();
    case FieldKind::texts:
      return all_strings(value);
    case FieldKind::whole_number:
      return value.is_number_unsigned();
    case FieldKind::number:
      return value.is_number();
    case FieldKind::array:
      return value.is_array();
    case FieldKind::object:
      return value.is_object();
    case FieldKind::object_or_null:
      return value.is_object() || value.is_null();
    case FieldKind::text_or_null:
      return value.is_string() || value.is_null();
    case FieldKind::any:
      return true;
  }
  return false;
}

const char* kind_name(FieldKind kind) {
  switch (kind) {
    case FieldKind::text:
      return "a string";
    case FieldKind::texts:
      return "an array of strings";
    case FieldKind::whole_number:
      return "a whole number";
    case FieldKind::number:
      return "a number";
    case FieldKind::array:
      return "an array";
    case FieldKind::object:
      return "an object";
    case FieldKind::object_or_null:
      return "an object or null";
    case FieldKind::text_or_null:
      return "a string or null";
    case FieldKind::any:
      break;
  }
  return "a value";
}

}  // namespace

const char* kind_of(const nlohmann::json& value) {
  if (value.is_string()) return "a string";
  if (value.is_number_unsigned()) return "a whole number";
  if (value.is_number()) return "a number";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  if (value.is_boolean()) return "true/false";
  return "null";
}

std::optional<FieldMismatch> field_mismatch(const nlohmann::json& document,
                                            const std::vector<FieldSpec>& fields) {
  for (const auto& field : fields) {
    const auto value = document.find(field.key);
    if (value == document.end()) return FieldMismatch{field.key, "", kind_name(field.kind)};
    if (!holds(*value, field.kind)) return FieldMismatch{field.key, kind_of(*value), kind_name(field.kind)};
  }
  return std::nullopt;
}

}  // namespace tpusim::workloads
