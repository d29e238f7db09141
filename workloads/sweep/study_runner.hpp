#pragma once
// Runs a study's points N at a time (child_pool.hpp), each result kept as a record in the output folder as
// soon as it arrives (record_folder.hpp), and assembles sweep.csv and sweep.json from all the records at the
// end. Running it again runs only the points without a valid record: a point whose record is missing, was
// made for another config or tpusim version (its hash differs), failed at run time, or does not pass its
// checks (a note on stderr names each such file). Points whose resolved configs coincide share a result: a
// record of one is valid for all, and each gets a record of its own from it. Records that no point of the
// study matches any more are removed, and counted. With a shard, only that shard's points run; the summary
// holds every point that has a record.
//
// Nothing is lost without a word: before returning, the summary must hold a row for every point of the shard
// counted done (done earlier and run now); if it does not, run_study throws std::runtime_error (exit status
// 1) naming the first point missing, after writing the summary it has.
//
// On the terminal (when `table`): the study's banner and table, one row per point run now, printed in point
// order as the points finish, with the progress on stderr (report/progress.hpp).
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "workloads/sweep/study.hpp"
#include "workloads/report/progress.hpp"
#include "workloads/sweep/sweep_manifest.hpp"
#include "workloads/sweep/sweep_record.hpp"
#include "workloads/sweep/sweep_shard.hpp"

namespace tpusim::workloads {

struct StudyRunOptions {
  int jobs = 1;  // children at once
  SweepShard shard;
  ProgressMode progress = ProgressMode::none;
  bool table = false;  // the banner, table and notes on stdout
  // With the table: the rows of points done by an earlier run too, before those run now (the table is the
  // report: tpusim fidelity), rather than only the rows run now (a sweep, whose summary files hold them all).
  bool table_rows_done_before = false;
  bool files = true;   // records and summary in study.output_dir(); else nothing is written
  nlohmann::json inputs = nlohmann::json::object();  // sweep.json's context inputs
  std::ostream* json_out = nullptr;                  // sweep.json printed here too
  std::function<void(std::size_t point)> on_point;   // after each point run now has its record (benchmarks)
  // Every point with a record (run now or earlier), in point order, as the summary is assembled: a report
  // over all the rows (tpusim fidelity's median error).
  std::function<void(std::size_t point, const PointOutcome& outcome)> on_row;
};

struct StudyRunTotals : RecordCounts {  // the summary's rows, by status
  std::size_t selected = 0;             // points of this shard (all, unsharded)
  std::size_t done_before = 0;          // of those, with a valid record from an earlier run
  std::size_t ran = 0;                  // run now (skipped points included)
  std::size_t discarded = 0;            // records of an earlier version of the study, removed
  double wall_s = 0;
};

// EnvironmentError (before any point runs) if the output folder cannot be written or another process is
// writing it; InputError if it holds files that are not a sweep's.
StudyRunTotals run_study(const Study& study, const StudyRunOptions& options);

}  // namespace tpusim::workloads
