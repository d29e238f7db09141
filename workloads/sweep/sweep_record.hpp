#pragma once
// A point's record: what running it gave, kept in its own file of the sweep's output folder
// (record_folder.hpp), <output>/points/<index>-<hash>.json, one line of JSON:
//   {"format": "tpusim.sweep_record.v2", "tpusim_version", "sweep": name, "sweep_hash": study_hash,
//    "point": index, "hash": point_hash, "values": [as written], "status": ok|failed|input_error|skipped,
//    "result": the child's figures or null, "error", "wall_s", "peak_rss_mib",
//    "csv": the point's sweep.csv row as cells, "run": its sweep.json run,
//    "checksum": of all the rest (folder_json.hpp), added as the file is written}
// The hash (of the point's resolved config and the tpusim version) says which point it is valid for; the row
// (csv, run) is kept so that `tpusim sweep merge` can assemble a summary without the sweep file, and is made
// again from the result whenever the sweep around the point changed (sweep_hash differs).
// Format v1 had no checksum: its records are not trusted, and their points run again.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "workloads/sweep/study.hpp"

namespace tpusim::workloads {

inline constexpr const char* kRecordFormat = "tpusim.sweep_record.v2";

nlohmann::json make_record(const Study& study, std::size_t point, const PointOutcome& outcome,
                           const std::string& sweep_hash);
// InputError if the record lacks a field (a file that is not a record; record_problem finds it first).
PointOutcome outcome_of_record(const nlohmann::json& record);
// What is wrong with `record`, read from the file of `point` and `hash` (record_file_name): "" when nothing,
// else words that follow the file's name ("fails its checksum ..."): another format, a field missing or of
// another type, another point or hash than its name says, a checksum that fails.
std::string record_problem(const nlohmann::json& record, std::size_t point, const std::string& hash);
// The same result: status, figures and error (not the wall time or memory, which vary from run to run).
bool same_result(const nlohmann::json& a, const nlohmann::json& b);

// A record file's text, read for the point and hash its name holds: the record if it is a valid one, else
// why not (a problem as record_problem words it, or "is not JSON ..."). Never throws.
struct RecordRead {
  std::optional<nlohmann::json> record;
  std::string problem;  // "" when the record is valid, or when there is no file
};
RecordRead parse_record(const std::string& text, std::size_t point, const std::string& hash);

// "<index>-<hash>.json"
std::string record_file_name(std::size_t point, const std::string& hash);
// The index and hash a record's file name holds; nothing for any other name (temporaries, the manifest).
struct RecordName {
  std::size_t point = 0;
  std::string hash;
};
std::optional<RecordName> parse_record_file_name(const std::string& name);

// Records counted by status, keeping the first error of each kind: what `tpusim sweep` and `tpusim sweep
// merge` report and turn into an exit status.
struct RecordCounts {
  std::size_t rows = 0, ok = 0, failed = 0, input_errors = 0, skipped = 0;
  std::string first_failure, first_input_error;
  void count(
      const nlohmann::json& record);  // by its "status": ok, skipped, input_error, anything else failed
};

}  // namespace tpusim::workloads
