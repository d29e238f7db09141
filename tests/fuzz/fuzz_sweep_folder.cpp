// Fuzz target: the readers of a sweep's output folder (workloads/sweep/record_folder.hpp), whose files later
// runs and `tpusim sweep merge` read back: the input as a point's record and as the folder's manifest, each
// as it is and with its checksum made anew (so that the checks after the checksum are reached too). A record
// is taken or refused with its problem, never with an exception, and one taken gives its outcome and its row;
// a manifest is taken or refused with an InputError, and one taken gives what a merge reads of it.
#include <sstream>

#include "fuzz_input.hpp"
#include "workloads/report/csv_writer.hpp"
#include "workloads/sweep/folder_json.hpp"
#include "workloads/sweep/sweep_manifest.hpp"
#include "workloads/sweep/sweep_record.hpp"
#include "workloads/sweep/sweep_shard.hpp"
#include "workloads/sweep/sweep_summary.hpp"

namespace {

using namespace tpusim::workloads;

// Whatever an exception escaping here is, it is a finding: a record's problems are results, not exceptions.
void read_record(const std::string& text, std::size_t point, const std::string& hash) {
  const RecordRead read = parse_record(text, point, hash);
  if (read.record.has_value() == !read.problem.empty()) __builtin_trap();  // exactly one of them
  if (!read.record) return;
  const PointOutcome outcome = outcome_of_record(*read.record);
  if (!same_result(*read.record, *read.record)) __builtin_trap();
  RecordCounts counts;
  counts.count(*read.record);
  const auto& cells = read.record->at("csv");
  if (!cells.empty()) {  // a row of another length than the header's is made anew (study_runner.cpp) or
                         // refused (merge)
    std::ostringstream csv;
    CsvWriter writer(csv, std::vector<std::string>(cells.size(), "column"));
    write_csv_cells(writer, cells);
  }
  (void)outcome;
}

void read_manifest(const std::string& text) {
  tpusim::fuzz::expect_only_input_errors([&] {
    const nlohmann::json manifest = parse_manifest(text, "fuzz/points/manifest.json");
    // What sweep merge reads of a manifest it took.
    (void)manifest.at("csv_header").get<std::vector<std::string>>();
    (void)manifest.at("point_hashes").get<std::vector<std::string>>();
    (void)manifest.at("document_format").get<std::string>();
    (void)manifest.value("sweep_hash", "");
    if (!manifest.at("shard").is_null()) parse_shard(manifest.at("shard").get<std::string>());
    std::ostringstream csv;
    const CsvWriter writer(csv, manifest.at("csv_header").get<std::vector<std::string>>());
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = tpusim::fuzz::text_of(data, size);
  // The point and hash of the file's name: those the record says, so that the checks past the name are met.
  const FolderJson parsed = parse_folder_json(text);
  std::size_t point = 0;
  std::string hash = "0000000000000000";
  if (parsed.problem.empty()) {
    const auto& document = parsed.document;
    if (document.contains("point") && document.at("point").is_number_unsigned())
      point = document.at("point").get<std::size_t>();
    if (document.contains("hash") && document.at("hash").is_string())
      hash = document.at("hash").get<std::string>();
  }
  read_record(text, point, hash);
  read_manifest(text);
  if (parsed.problem.empty()) {
    const std::string resealed = canonical_text(with_checksum(parsed.document));
    read_record(resealed, point, hash);
    read_manifest(resealed);
  }
  return 0;
}
