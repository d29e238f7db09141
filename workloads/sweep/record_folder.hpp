#pragma once
// A sweep's output folder, which outlives any one run of the sweep:
//   <output>/points/<index>-<hash>.json   a record per point that has run (sweep_record.hpp), each written to
//                                         a temporary and renamed, so a killed run leaves whole records only
//   <output>/points/manifest.json         the sweep the records belong to (sweep_manifest.hpp): what `tpusim
//                                         sweep merge` reads
//   <output>/sweep.csv, sweep.json        the summary, assembled from the records at the end of every run
//   <output>/plots/, report.md             drawn from sweep.json (report/sweep_plots.hpp)
// Records and manifest carry a checksum (folder_json.hpp) and are checked as they are read. Running the
// sweep again runs only the points without a valid record. A run holds the folder's lock (folder_lock.hpp)
// while it writes, and removes the temporaries of killed writers (leftovers.hpp) when it opens the folder.
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workloads/sweep/sweep_manifest.hpp"
#include "workloads/sweep/sweep_record.hpp"

namespace tpusim {
class FolderLock;
}

namespace tpusim::workloads {

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
  // created or written, or that another process is writing, an EnvironmentError. Creates the folder and
  // points/, and holds its lock while this object or a copy of it lives. `report_files` are what the
  // study's command writes there beside the summary (Study::report_files), which the folder may hold too.
  explicit RecordFolder(std::string folder, const std::vector<std::string>& report_files = {});
  // A new folder inside a staging folder of this process (sweep merge's output), whose lock is the staged
  // folder's: neither locked again nor cleaned.
  static RecordFolder staged(const std::string& folder);
  // An existing output folder, for reading (merge). InputError unless it holds a manifest.
  static RecordFolder existing(const std::string& folder);

  const std::string& folder() const { return folder_; }
  std::string points_folder() const { return folder_ + "/points"; }

  // Calls `visit` for each record present, by file name, in no particular order. A visitor rather than a
  // list, so that a study of 10,000 points does not hold 10,000 paths to look at them.
  void scan(const std::function<void(RecordFile)>& visit) const;
  // The record of `point` with `hash`, where it would be (points/<point>-<hash>.json), whether or not it is.
  RecordFile record_file(std::size_t point, const std::string& hash) const;
  // A record, checked (parse_record): nothing and no problem if the file is gone; nothing and the problem
  // ("fails its checksum ...", "cannot be read: ...") if it is there but not a valid record.
  RecordRead read(const RecordFile& file) const;
  // Writes the record (its "point" and "hash" name the file) whole, with its checksum: temporary, then
  // rename.
  std::string write(const nlohmann::json& record) const;
  void remove(const RecordFile& file) const;

  void write_manifest(const nlohmann::json& manifest) const;  // with its checksum
  // The manifest, checked (parse_manifest): InputError naming the file and the key otherwise.
  nlohmann::json read_manifest() const;

 private:
  enum class Use { write, write_staged, read };
  RecordFolder(std::string folder, Use use, const std::vector<std::string>& report_files = {});

  std::string folder_;
  std::shared_ptr<FolderLock> lock_;
};

// Writes `text` to `path` through "<path>.tmp.<pid>" and a rename. Unlike write_file_atomically it does not
// look for stale temporaries (RecordFolder does once, when opened): with thousands of records beside it, a
// scan per write would make the run quadratic. EnvironmentError on failure.
void write_whole_file(const std::string& path, const std::string& text);

}  // namespace tpusim::workloads
