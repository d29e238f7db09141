#include "workloads/sweep/json_checksum.hpp"

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

}  // namespace tpusim::workloads
