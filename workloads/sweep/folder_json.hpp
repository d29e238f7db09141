#pragma once
// The JSON files of a sweep's folder (records and manifest, record_folder.hpp) are read back by later runs
// and by `tpusim sweep merge`, so they are checked before their figures are trusted: parsed within limits,
// every field of the kind it must be, and a checksum of the content. The checksum is FNV-1a over 64 bits
// (content_hash.hpp) of the document's canonical text, nlohmann::json::dump() of it without its "checksum"
// key (keys sorted, no spaces, numbers in the shortest form that reads back the same), as 16 hex digits. A
// file edited by hand or damaged on disk fails it; a change of layout only (spaces, key order, escapes) does
// not, as it changes nothing read. Not a signature: it catches mistakes and damage, not someone who
// recomputes it.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tpusim::workloads {

// The text a document is written as and checked by: one line, keys sorted; bytes that are not UTF-8 (an
// error message may quote anything) replaced by U+FFFD, as they read back.
std::string canonical_text(const nlohmann::json& document);
std::string checksum_of(const nlohmann::json& document);
// `document` (an object) with its "checksum".
nlohmann::json with_checksum(nlohmann::json document);
// Whether its "checksum" is the checksum of the rest.
bool checksum_matches(const nlohmann::json& document);

// The text of a record or manifest, parsed. `problem` says why it is not a JSON object, as words that follow
// the file's name ("is not JSON"); the text is refused before parsing when larger or nested deeper than a
// record or manifest ever is (a manifest of a million points is about 20 MiB).
struct FolderJson {
  nlohmann::json document;
  std::string problem;
};
inline constexpr std::size_t kMaxFolderJsonBytes = std::size_t{64} << 20;
inline constexpr int kMaxFolderJsonDepth = 64;
FolderJson parse_folder_json(const std::string& text);

// What a field must hold.
enum class FieldKind { text, texts, whole_number, number, array, object, object_or_null, text_or_null, any };
struct FieldSpec {
  const char* key;
  FieldKind kind;
};
// The first of `fields` that `document` (an object) lacks or holds something else in: the key, what is there
// ("a string"; "" when missing) and what belongs there ("a whole number").
struct FieldMismatch {
  const char* key;
  const char* found;
  const char* expected;
  bool missing() const { return *found == '\0'; }
};
std::optional<FieldMismatch> field_mismatch(const nlohmann::json& document,
                                            const std::vector<FieldSpec>& fields);
// What a value is, as field_mismatch names it.
const char* kind_of(const nlohmann::json& value);

}  // namespace tpusim::workloads
