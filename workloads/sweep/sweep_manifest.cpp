#include "workloads/sweep/sweep_manifest.hpp"

#include <fmt/format.h>

#include "topologies/support/input_error.hpp"
#include "workloads/sweep/json_checksum.hpp"

namespace tpusim::workloads {
namespace {

enum class Kind { text, whole_number, texts, object, object_or_null, text_or_null };

struct Key {
  const char* name;
  Kind kind;
};

// Every key study_manifest writes but the format, which is checked first, and the checksum, last.
constexpr Key kKeys[] = {
    {"tpusim_version", Kind::text},  {"kind", Kind::text},           {"sweep", Kind::text},
    {"sweep_hash", Kind::text},      {"points", Kind::whole_number}, {"point_hashes", Kind::texts},
    {"shard", Kind::text_or_null},   {"csv_header", Kind::texts},    {"description", Kind::object_or_null},
    {"document_format", Kind::text}, {"inputs", Kind::object}};

bool all_strings(const nlohmann::json& value) {
  if (!value.is_array()) return false;
  for (const auto& item : value) {
    if (!item.is_string()) return false;
  }
  return true;
}

bool is_kind(const nlohmann::json& value, Kind kind) {
  switch (kind) {
    case Kind::text:
      return value.is_string();
    case Kind::whole_number:
      return value.is_number_unsigned();
    case Kind::texts:
      return all_strings(value);
    case Kind::object:
      return value.is_object();
    case Kind::object_or_null:
      return value.is_object() || value.is_null();
    case Kind::text_or_null:
      return value.is_string() || value.is_null();
  }
  return false;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::text:
      return "a string";
    case Kind::whole_number:
      return "a whole number";
    case Kind::texts:
      return "an array of strings";
    case Kind::object:
      return "an object";
    case Kind::object_or_null:
      return "an object or null";
    case Kind::text_or_null:
      return "a string or null";
  }
  return "a value";
}

}  // namespace

nlohmann::json study_manifest(const Study& study, const std::string& sweep_hash, const SweepShard& shard,
                              const nlohmann::json& inputs) {
  std::vector<std::string> hashes;
  hashes.reserve(study.size());
  for (std::size_t i = 0; i < study.size(); ++i) hashes.push_back(study.point_hash(i));
  return {{"format", kManifestFormat},
          {"tpusim_version", TPUSIM_VERSION},
          {"kind", study.kind()},
          {"sweep", study.name()},
          {"sweep_hash", sweep_hash},
          {"points", study.size()},
          {"point_hashes", hashes},
          {"shard", shard.whole() ? nlohmann::json(nullptr) : nlohmann::json(shard.text())},
          {"csv_header", study.csv_header()},
          {"description", study.description()},
          {"document_format", study.document_format()},
          {"inputs", inputs}};
}

nlohmann::json parse_manifest(const std::string& text, const std::string& path) {
  FolderJson parsed = parse_folder_json(text);
  if (!parsed.problem.empty())
    throw InputError(fmt::format("{}: the sweep manifest {}", path, parsed.problem));
  const nlohmann::json& manifest = parsed.document;
  const auto format = manifest.find("format");
  if (format == manifest.end() || *format != kManifestFormat) {
    throw InputError(fmt::format(
        "{}: format: not a sweep manifest of this tpusim (format {}); run the sweep again with this tpusim",
        path, kManifestFormat));
  }
  for (const auto& key : kKeys) {
    const auto value = manifest.find(key.name);
    if (value == manifest.end()) throw InputError(fmt::format("{}: {}: missing", path, key.name));
    if (!is_kind(*value, key.kind))
      throw InputError(fmt::format("{}: {}: not {}", path, key.name, kind_name(key.kind)));
  }
  if (manifest.at("csv_header").empty()) throw InputError(fmt::format("{}: csv_header: empty", path));
  const std::size_t points = manifest.at("points").get<std::size_t>();
  if (manifest.at("point_hashes").size() != points) {
    throw InputError(fmt::format("{}: point_hashes: {} hashes for {} points", path,
                                 manifest.at("point_hashes").size(), points));
  }
  if (manifest.at("shard").is_string()) {
    const std::string shard = manifest.at("shard").get<std::string>();
    try {
      parse_shard(shard);
    } catch (const InputError&) {
      throw InputError(fmt::format("{}: shard: not K/N with 1 <= K <= N", path));
    }
  }
  if (!manifest.contains("checksum") || !manifest.at("checksum").is_string())
    throw InputError(fmt::format("{}: checksum: missing", path));
  if (!checksum_matches(manifest))
    throw InputError(
        fmt::format("{}: checksum: fails: the manifest was changed after tpusim wrote it", path));
  return std::move(parsed.document);
}

}  // namespace tpusim::workloads
