#pragma once
// The manifest of a sweep's output folder, <output>/points/manifest.json (record_folder.hpp): which sweep the
// records belong to, written by every run before its points and read by `tpusim sweep merge`, which assembles
// a summary from it without the sweep file:
//   {"format": "tpusim.sweep_manifest.v2", "tpusim_version", "kind", "sweep": name, "sweep_hash",
//    "points": count, "point_hashes": [one per point], "shard": "K/N" or null, "csv_header": [names],
//    "description": sweep.json's "sweep" block, "document_format", "inputs": sweep.json's context inputs,
//    "checksum": of all the rest (folder_json.hpp)}
// Format v1 had no checksum; a run writes the manifest anew, so only a merge meets an old one, and refuses
// it.
#include <nlohmann/json.hpp>
#include <string>

#include "workloads/sweep/study.hpp"
#include "workloads/sweep/sweep_shard.hpp"

namespace tpusim::workloads {

inline constexpr const char* kManifestFormat = "tpusim.sweep_manifest.v2";

// The manifest of a study's output folder, without its checksum (added as it is written).
nlohmann::json study_manifest(const Study& study, const std::string& sweep_hash, const SweepShard& shard,
                              const nlohmann::json& inputs);

// `text`, the manifest read from `path`, checked: every key there with its type, one hash per point, a shard
// that is K/N, the checksum. InputError "<path>: ..." naming the key and the problem otherwise.
nlohmann::json parse_manifest(const std::string& text, const std::string& path);

}  // namespace tpusim::workloads
