#pragma once
// A point's record: what running it gave, kept in its own file of the sweep's output folder
// (record_folder.hpp), <output>/points/<index>-<hash>.json, one line of JSON:
//   {"format": "tpusim.sweep_record.v1", "tpusim_version", "sweep": name, "sweep_hash": study_hash,
//    "point": index, "hash": point_hash, "values": [as written], "status": ok|failed|input_error|skipped,
//    "result": the child's figures or null, "error", "wall_s", "peak_rss_mib",
//    "csv": the point's sweep.csv row as cells, "run": its sweep.json run}
// The hash says which point it is valid for; the row (csv, run) is kept so that `tpusim sweep merge` can
// assemble a summary without the sweep file, and is made again from the result whenever the sweep around
// the point changed (sweep_hash differs).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "workloads/sweep/study.hpp"

namespace tpusim::workloads {

inline constexpr const char* kRecordFormat = "tpusim.sweep_record.v1";

nlohmann::json make_record(const Study& study, std::size_t point, const PointOutcome& outcome,
                           const std::string& sweep_hash);
// InputError if the record lacks a field (a file that is not a record).
PointOutcome outcome_of_record(const nlohmann::json& record);
// The same result: status, figures and error (not the wall time or memory, which vary from run to run).
bool same_result(const nlohmann::json& a, const nlohmann::json& b);

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
