#include "workloads/sweep/folder_json.hpp"

#include <fmt/format.h>

#include "topologies/support/check.hpp"
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

// Each kind's test and its words, in the order of FieldKind.
struct KindRow {
  FieldKind kind;
  bool (*holds)(const nlohmann::json&);
  const char* name;
};
constexpr KindRow kKinds[] = {
    {FieldKind::text, [](const nlohmann::json& v) { return v.is_string(); }, "a string"},
    {FieldKind::texts, all_strings, "an array of strings"},
    {FieldKind::whole_number, [](const nlohmann::json& v) { return v.is_number_unsigned(); }, "a whole number"},
    {FieldKind::number, [](const nlohmann::json& v) { return v.is_number(); }, "a number"},
    {FieldKind::array, [](const nlohmann::json& v) { return v.is_array(); }, "an array"},
    {FieldKind::object, [](const nlohmann::json& v) { return v.is_object(); }, "an object"},
    {FieldKind::object_or_null, [](const nlohmann::json& v) { return v.is_object() || v.is_null(); },
     "an object or null"},
    {FieldKind::text_or_null, [](const nlohmann::json& v) { return v.is_string() || v.is_null(); },
     "a string or null"},
    {FieldKind::any, [](const nlohmann::json&) { return true; }, "a value"},
};

const KindRow& row_of(FieldKind kind) {
  const auto& row = kKinds[static_cast<int>(kind)];
  TPUSIM_CHECK(row.kind == kind);
  return row;
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
    const KindRow& row = row_of(field.kind);
    if (value == document.end()) return FieldMismatch{field.key, "", row.name};
    if (!row.holds(*value)) return FieldMismatch{field.key, kind_of(*value), row.name};
  }
  return std::nullopt;
}

}  // namespace tpusim::workloads
