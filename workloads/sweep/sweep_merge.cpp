#include "workloads/sweep/sweep_merge.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "topologies/support/atomic_folder.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/sweep/record_folder.hpp"
#include "workloads/sweep/scaling.hpp"
#include "workloads/sweep/sweep_record.hpp"
#include "workloads/sweep/sweep_shard.hpp"
#include "workloads/sweep/sweep_summary.hpp"

namespace tpusim::workloads {
namespace fs = std::filesystem;
namespace {

struct Source {
  std::string folder;
  RecordFolder records;
  nlohmann::json manifest;
};

// Where a point's record is: the first folder that holds it.
struct Found {
  std::size_t source = 0;
  RecordFile file;
};

std::string describe_shard(const nlohmann::json& manifest) {
  return manifest.at("shard").is_null() ? "the whole sweep"
                                        : "shard " + manifest.at("shard").get<std::string>();
}

std::vector<Source> open_sources(const std::string& output, const std::vector<std::string>& folders) {
  std::vector<Source> sources;
  std::error_code error;
  for (const auto& folder : folders) {
    if (fs::exists(output, error) && fs::equivalent(output, folder, error)) {
      throw InputError(fmt::format(
          "sweep merge: the output folder '{}' is also an input; merge into a folder of its own", output));
    }
    RecordFolder records = RecordFolder::existing(folder);
    nlohmann::json manifest = records.read_manifest();
    if (!sources.empty()) {
      const auto& first = sources.front();
      if (manifest.value("sweep_hash", "") != first.manifest.value("sweep_hash", "")) {
        throw InputError(fmt::format(
            "sweep merge: '{}' holds sweep {} (hash {}) but '{}' holds sweep {} (hash {}): the folders are "
            "of "
            "different sweeps, or of different versions of one (its base config, vary block or tpusim "
            "changed); merge only the shards of one run",
            folder, manifest.value("sweep", "?"), manifest.value("sweep_hash", "?"), first.folder,
            first.manifest.value("sweep", "?"), first.manifest.value("sweep_hash", "?")));
      }
    }
    sources.push_back(Source{folder, std::move(records), std::move(manifest)});
  }
  return sources;
}

// The record, which must pass its checks: a record edited or damaged is never merged, nor passed over as if
// it were not there.
std::optional<nlohmann::json> read_checked(const Source& source, const RecordFile& file) {
  auto read = source.records.read(file);
  if (!read.problem.empty()) {
    throw InputError(
        fmt::format("sweep merge: record '{}' {}; nothing merged: remove it and run {} again to make it anew",
                    file.path, read.problem, describe_shard(source.manifest)));
  }
  auto& record = read.record;
  if (!record) return record;
  // A point's row holds every column but the scaling ones, which the summary adds (scaling.hpp).
  const auto header = source.manifest.at("csv_header").get<std::vector<std::string>>();
  const std::size_t cells = header.size() - (has_scaling_columns(header) ? kScalingCsvColumns.size() : 0);
  if (record->at("csv").size() != cells) {
    throw InputError(fmt::format(
        "sweep merge: record '{}' has {} cells in its row where the sweep's header has {}; nothing merged: "
        "remove it and run {} again to make it anew",
        file.path, record->at("csv").size(), cells, describe_shard(source.manifest)));
  }
  if (record->value("sweep_hash", "") != source.manifest.at("sweep_hash")) {
    throw InputError(fmt::format(
        "sweep merge: point {} in '{}' is a record of an earlier version of the sweep; run {} again so that "
        "its records are brought up to date",
        file.point, source.folder, describe_shard(source.manifest)));
  }
  return record;
}

// Every point's record, checked: overlaps agree, none is missing.
std::vector<std::optional<Found>> find_records(const std::vector<Source>& sources) {
  const auto& manifest = sources.front().manifest;
  const auto hashes = manifest.at("point_hashes").get<std::vector<std::string>>();
  std::vector<std::optional<Found>> found(hashes.size());
  for (std::size_t s = 0; s < sources.size(); ++s) {
    sources[s].records.scan([&](RecordFile file) {
      if (file.point >= hashes.size() || hashes[file.point] != file.hash) return;  // not of this version
      const auto record = read_checked(sources[s], file);
      if (!record) return;
      auto& first = found[file.point];
      if (!first) {
        first = Found{s, std::move(file)};
        return;
      }
      const auto earlier = read_checked(sources[first->source], first->file);
      if (earlier && !same_result(*earlier, *record)) {
        throw InputError(fmt::format(
            "sweep merge: point {} differs between '{}' ({}) and '{}' ({}); the records of one point must "
            "agree: remove the wrong folder's record, or run its shard again",
            file.point, sources[first->source].folder, earlier->value("status", "?"), sources[s].folder,
            record->value("status", "?")));
      }
    });
  }
  std::size_t missing = 0;
  std::size_t first_missing = 0;
  for (std::size_t i = found.size(); i-- > 0;) {
    if (!found[i]) {
      ++missing;
      first_missing = i;
    }
  }
  if (missing > 0) {
    std::string rerun = "the sweep";
    if (!manifest.at("shard").is_null()) {
      const SweepShard shard = parse_shard(manifest.at("shard").get<std::string>());
      rerun = fmt::format("its shard (--shard {}/{})", first_missing % shard.n + 1, shard.n);
    }
    throw InputError(fmt::format(
        "sweep merge: {} of the {} points of sweep {} are in none of the folders (the first: point {}); run "
        "{} again, or give its folder",
        missing, found.size(), manifest.value("sweep", "?"), first_missing, rerun));
  }
  return found;
}

}  // namespace

MergeTotals merge_sweep_folders(const std::string& output, const std::vector<std::string>& folders) {
  const auto started = std::chrono::steady_clock::now();
  if (folders.empty()) throw InputError("sweep merge: give the output folder and the shard folders to join");
  const std::vector<Source> sources = open_sources(output, folders);
  const auto found = find_records(sources);
  // Everything checked: write the merged folder as one unit.
  std::vector<std::string> names = sweep_output_entries();
  names.push_back("points");
  StagedFolder staged(output, names);
  const RecordFolder merged = RecordFolder::staged(staged.staged_path(""));
  nlohmann::json manifest = sources.front().manifest;
  manifest["shard"] = nullptr;
  merged.write_manifest(manifest);
  const SummaryHeader header{manifest.at("csv_header").get<std::vector<std::string>>(),
                             manifest.at("description"), manifest.at("document_format").get<std::string>(),
                             manifest.at("inputs")};
  SummaryFiles summary(merged.folder(), header);
  MergeTotals totals;
  totals.sweep = manifest.value("sweep", "");
  auto read_point = [&](const std::optional<Found>& point) {
    auto record = read_checked(sources[point->source], point->file);
    if (!record)
      throw InputError(fmt::format("sweep merge: '{}' disappeared while merging", point->file.path));
    return *record;
  };
  // The scaling columns compare points with the smallest of their series: gathered first, as a run does.
  const bool scaling = has_scaling_columns(header.csv_header);
  std::vector<ScalingInput> scaling_inputs;
  if (scaling) {
    for (const auto& point : found)
      scaling_inputs.push_back(scaling_input_of_run(read_point(point).at("run")));
  }
  const auto figures = scaling_figures(scaling_inputs);
  for (std::size_t i = 0; i < found.size(); ++i) {
    const nlohmann::json record = read_point(found[i]);
    merged.write(record);
    nlohmann::json cells = record.at("csv"), run = record.at("run");
    if (scaling) add_scaling(cells, run, figures[i]);
    summary.add(cells, run);
    totals.count(record);
  }
  summary.commit(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  staged.commit();
  return totals;
}

}  // namespace tpusim::workloads
