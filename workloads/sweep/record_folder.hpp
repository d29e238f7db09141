#pragma once
// A sweep's output folder, which outlives any one run of the sweep:
//   <output>/points/<index>-<hash>.json   a record per point that has run (sweep_record.hpp), each written to
//                                         a temporary and renamed, so a killed run leaves whole records only
//   <output>/points/manifest.json         the sweep the records belong to (study_hash, every point's hash,
//                                         the shard, the summary's header): what `tpusim sweep merge` reads
//   <output>/sweep.csv, sweep.json        the summary, assembled from the records at the end of every run
//   <output>/plots/, report.md             drawn from sweep.json (report/sweep_plots.hpp)
// Running the sweep again runs only the points without a valid record. Temporaries of killed writers (whose
// pid no longer runs) are removed when the folder is opened.
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tpusim::workloads {

inline constexpr const char* kManifestFormat = "tpusim.sweep_manifest.v1";

// The entries of an output folder besides points/: the summary and what is drawn from it (report/
// sweep_plots.hpp). An existing folder holding anything else is not a sweep's.
std::vector<std::string> sweep_output_entries();

struct RecordFile {
  std::size_t point = 0;
  std::string hash;
  std::string path;
};

class RecordFolder {
 public:
  // Opens `folder` for writing: new, empty, or an earlier output of a sweep. A folder holding anything else
  // is an InputError (a mistyped --output must not mix records into someone's files); one that cannot be
  // created or written an EnvironmentError "cannot write results folder '...': reason". Creates the folder
  // and points/.
  explicit RecordFolder(std::string folder);
  // An existing output folder, for reading (merge). InputError unless it holds a manifest.
  static RecordFolder existing(const std::string& folder);

  const std::string& folder() const { return folder_; }
  std::string points_folder() const { return folder_ + "/points"; }

  // Calls `visit` for each record present, by file name, in no particular order. A visitor rather than a
  // list, so that a study of 10,000 points does not hold 10,000 paths to look at them.
  void scan(const std::function<void(RecordFile)>& visit) const;
  // The record of `point` with `hash`, where it would be (points/<point>-<hash>.json), whether or not it is.
  RecordFile record_file(std::size_t point, const std::string& hash) const;
  // A record's JSON; nothing if the file is gone or not a record (then it is treated as missing).
  std::optional<nlohmann::json> read(const RecordFile& file) const;
  // Writes the record (its "point" and "hash" name the file) whole: temporary, then rename.
  std::string write(const nlohmann::json& record) const;
  void remove(const RecordFile& file) const;

  void write_manifest(const nlohmann::json& manifest) const;
  nlohmann::json read_manifest() const;  // InputError naming the folder if it has none

 private:
  struct Unchecked {};
  RecordFolder(std::string folder, Unchecked);

  std::string folder_;
};

// Writes `text` to `path` through "<path>.tmp.<pid>" and a rename. Unlike write_file_atomically it does not
// look for stale temporaries (RecordFolder does once, when opened): with thousands of records beside it, a
// scan per write would make the run quadratic. EnvironmentError on failure.
void write_whole_file(const std::string& path, const std::string& text);

}  // namespace tpusim::workloads
