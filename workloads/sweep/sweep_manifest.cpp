#include "workloads/sweep/sweep_manifest.hpp"

#include <fmt/format.h>

#include "topologies/support/input_error.hpp"
#include "workloads/sweep/folder_json.hpp"

namespace tpusim::workloads {
namespace {

// Every key study_manifest writes but the format, which is checked first, and the checksum, last.
const std::vector<FieldSpec> kKeys = {{"tpusim_version", FieldKind::text},
                                      {"kind", FieldKind::text},
                                      {"sweep", FieldKind::text},
                                      {"sweep_hash", FieldKind::text},
                                      {"points", FieldKind::whole_number},
                                      {"point_hashes", FieldKind::texts},
                                      {"shard", FieldKind::text_or_null},
                                      {"csv_header", FieldKind::texts},
                                      {"description", FieldKind::object_or_null},
                                      {"document_format", FieldKind::text},
                                      {"inputs", FieldKind::object}};

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
  if (const auto mismatch = field_mismatch(manifest, kKeys)) {
    if (mismatch->missing()) throw InputError(fmt::format("{}: {}: missing", path, mismatch->key));
    throw InputError(fmt::format("{}: {}: not {}", path, mismatch->key, mismatch->expected));
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
