#pragma once
// A sweep's summary files, sweep.csv and sweep.json, written row by row from the points' records: a study of
// 10,000 points never holds its 10,000 rows, or their JSON, in memory at once. Each file is written to a
// temporary beside it and renamed into place only when complete (sweep.json first, then sweep.csv), so a
// reader never sees a torn summary, and a killed run leaves the previous summary (and every record) as it
// was.
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "workloads/report/csv_writer.hpp"

namespace tpusim::workloads {

// A row given as typed cells (Study::csv_cells): strings as text, integers and doubles as numbers (doubles
// in the shortest form that reads back the same, so a cell read from a record prints as it did before),
// booleans, null as an empty cell.
void write_csv_cells(CsvWriter& csv, const nlohmann::json& cells);

// A sweep.json streamed: the document of report_context.hpp's dump_report with its "runs" written one at a
// time, the text identical to dumping the whole document at once.
class SweepJsonWriter {
 public:
  // `body`: the document's fields but "runs" (which goes between "context" and "sweep"); its "wall_s" is
  // given to finish().
  SweepJsonWriter(std::ostream& out, nlohmann::json body, std::string format, nlohmann::json inputs);
  void add(const nlohmann::json& run);
  void finish(double wall_s);

 private:
  std::string document_text(double wall_s) const;

  std::ostream& out_;
  nlohmann::json body_;
  std::string format_;
  nlohmann::json inputs_;
  std::size_t runs_ = 0;
};

// What the summary of a study needs besides its rows.
struct SummaryHeader {
  std::vector<std::string> csv_header;
  nlohmann::json description;  // sweep.json's "sweep"
  std::string format;          // sweep.json's context format
  nlohmann::json inputs;       // and inputs
};

// sweep.csv and sweep.json in `folder`, as temporaries until commit(); removed if never committed.
class SummaryFiles {
 public:
  SummaryFiles(const std::string& folder, const SummaryHeader& header);
  ~SummaryFiles();
  SummaryFiles(const SummaryFiles&) = delete;
  SummaryFiles& operator=(const SummaryFiles&) = delete;

  void add(const nlohmann::json& cells, const nlohmann::json& run);
  // Finishes both files and renames them into place. EnvironmentError if they cannot be written.
  void commit(double wall_s);
  std::string csv_path() const { return folder_ + "/sweep.csv"; }
  std::string json_path() const { return folder_ + "/sweep.json"; }

 private:
  std::string folder_;
  std::string csv_temporary_, json_temporary_;
  std::ofstream csv_file_, json_file_;
  std::unique_ptr<CsvWriter> csv_;
  std::unique_ptr<SweepJsonWriter> json_;
  bool committed_ = false;
};

// The names of the summary files, for the checks of an output folder.
extern const std::vector<std::string> kSweepSummaryFiles;  // sweep.csv, sweep.json

}  // namespace tpusim::workloads
