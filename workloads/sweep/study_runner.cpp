#include "workloads/sweep/study_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "workloads/sweep/child_pool.hpp"
#include "workloads/sweep/record_folder.hpp"
#include "workloads/sweep/scaling.hpp"
#include "workloads/sweep/sweep_record.hpp"
#include "workloads/sweep/sweep_report.hpp"
#include "workloads/sweep/sweep_summary.hpp"

namespace tpusim::workloads {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

PointOutcome outcome_of_child(const ChildOutcome& child) {
  PointOutcome outcome;
  outcome.wall_s = child.wall_s;
  outcome.peak_rss_mib = child.peak_rss_mib;
  if (child.ok()) {
    outcome.result = nlohmann::json::parse(child.output, nullptr, /*allow_exceptions=*/false);
    if (!outcome.result.is_discarded()) {
      outcome.status = "ok";
      return outcome;
    }
    outcome.result = nullptr;
    outcome.error = "the point's child process sent a result that is not JSON";
  } else {
    outcome.error = child.error;
  }
  outcome.status = child.input_error ? "input_error" : "failed";
  return outcome;
}

// Notes about records that fail their checks: one line per record up to this many, then one for the rest.
constexpr std::size_t kRecordNotes = 10;

std::string discard_note(std::size_t discarded) {
  return fmt::format(
      "{} record{} of an earlier version of this sweep {} discarded: the base config, the vary block or the "
      "tpusim version changed\n",
      discarded, discarded == 1 ? "" : "s", discarded == 1 ? "is" : "are");
}

class Runner {
 public:
  Runner(const Study& study, const StudyRunOptions& options)
      : study_(study), options_(options), sweep_hash_(study_hash(study)), started_(Clock::now()) {
    if (options_.files)
      folder_.emplace(study.output_dir(), study.report_files());
    else
      memory_.resize(study.size());
  }

  StudyRunTotals run() {
    std::vector<std::size_t> todo = plan();
    if (folder_)
      folder_->write_manifest(study_manifest(study_, sweep_hash_, options_.shard, options_.inputs));
    announce(todo);
    execute(todo);
    assemble();
    if (!resolved_rows_.empty()) std::cout << resolved_rows_ << std::flush;
    return totals_;
  }

 private:
  // Which points run now: the shard's points without a valid record, or whose record is of a failure.
  std::vector<std::size_t> plan() {
    std::unordered_map<std::string, std::vector<std::size_t>> points_of_hash;
    for (std::size_t i = 0; i < study_.size(); ++i) points_of_hash[study_.point_hash(i)].push_back(i);
    for (const auto& [hash, points] : points_of_hash) {
      if (points.size() > 1) shared_hashes_.insert(hash);
    }
    std::vector<std::string> status(study_.size());
    std::vector<std::pair<RecordFile, std::string>> invalid;
    if (folder_) {
      folder_->scan([&](const RecordFile& file) {
        const auto points = points_of_hash.find(file.hash);
        if (points == points_of_hash.end()) {
          folder_->remove(file);
          ++totals_.discarded;
          return;
        }
        auto read = folder_->read(file);
        if (!read.record) {  // replaced when its point runs
          if (!read.problem.empty()) invalid.emplace_back(file, std::move(read.problem));
          return;
        }
        const std::string record_status = read.record->value("status", "");
        // A record is valid for every point with its hash; the one at the point's own index is preferred.
        for (const std::size_t p : points->second) {
          if (!status[p].empty() && p != file.point) continue;
          status[p] = record_status;
          if (options_.table && options_.table_rows_done_before) earlier_[p] = outcome_of_record(*read.record);
        }
      });
    }
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < study_.size(); ++i) {
      if (!options_.shard.has(static_cast<int>(i))) continue;
      ++totals_.selected;
      if (status[i].empty() || status[i] == "failed") {
        todo.push_back(i);
      } else {
        ++totals_.done_before;
      }
    }
    note_invalid(invalid, todo);
    return todo;
  }

  // A line on stderr per record that fails its checks, saying whether its point runs again.
  void note_invalid(const std::vector<std::pair<RecordFile, std::string>>& invalid,
                    const std::vector<std::size_t>& todo) const {
    const std::unordered_set<std::size_t> runs(todo.begin(), todo.end());
    std::string text;
    for (std::size_t n = 0; n < invalid.size() && n < kRecordNotes; ++n) {
      const auto& [file, problem] = invalid[n];
      const bool again = runs.count(file.point) > 0 && study_.point_hash(file.point) == file.hash;
      text += fmt::format("tpusim: note: record '{}' {}; {}\n", file.path, problem,
                          again ? fmt::format("running point {} again", file.point) : "it is not used");
    }
    if (invalid.size() > kRecordNotes) {
      text += fmt::format("tpusim: note: {} more records fail their checks; their points run again\n",
                          invalid.size() - kRecordNotes);
    }
    std::cerr << text << std::flush;
  }

  void announce(const std::vector<std::size_t>& todo) {
    if (!options_.table) {
      // The JSON on stdout is the whole answer; a note about what was thrown away still goes to stderr.
      if (totals_.discarded > 0)
        std::cerr << fmt::format("tpusim: note: {}", discard_note(totals_.discarded)) << std::flush;
      return;
    }
    std::string text = study_.banner();
    if (!options_.shard.whole()) {
      text += fmt::format("shard {}: the {} of {} points whose index % {} is {}\n", options_.shard.text(),
                          totals_.selected, study_.size(), options_.shard.n, options_.shard.k - 1);
    }
    if (totals_.discarded > 0) text += discard_note(totals_.discarded);
    if (totals_.done_before > 0) {
      text += fmt::format("{} of {} points done earlier (records in {}/points/); running the other {}\n",
                          totals_.done_before, totals_.selected, folder_->folder(), todo.size());
    }
    text += study_.table_header();
    // Rows of points done by an earlier run, when the table is the report (tpusim fidelity): the points that
    // run now follow.
    for (const auto& [point, outcome] : earlier_) {
      if (options_.shard.has(static_cast<int>(point)) && outcome.status != "failed")
        text += study_.table_row(point, outcome);
    }
    earlier_.clear();
    std::cout << text << std::flush;
  }

  void execute(const std::vector<std::size_t>& todo) {
    Progress progress(options_.progress, study_.name(), static_cast<int>(totals_.selected),
                           static_cast<int>(totals_.done_before));
    std::map<std::size_t, std::string> rows;  // finished, waiting for the rows before them to print
    std::size_t next_row = 0;
    auto finish = [&](std::size_t point, const PointOutcome& outcome) {
      keep(make_record(study_, point, outcome, sweep_hash_));
      ++totals_.ran;
      if (options_.on_point) options_.on_point(point);
      progress.one_done(outcome.status == "failed" || outcome.status == "input_error");
      if (!options_.table) return;
      rows[point] = study_.table_row(point, outcome);
      std::string text;
      for (; next_row < todo.size() && rows.count(todo[next_row]) > 0; ++next_row) {
        text += rows[todo[next_row]];
        rows.erase(todo[next_row]);
      }
      if (!text.empty()) progress.print_above(text);
    };
    ChildPool pool(options_.jobs);
    std::size_t next = 0;
    while (next < todo.size() || pool.running() > 0) {
      while (!pool.full() && next < todo.size()) {
        const std::size_t point = todo[next++];
        const std::string reason = study_.skip_reason(point);
        if (!reason.empty()) {
          PointOutcome skipped;
          skipped.status = "skipped";
          skipped.error = reason;
          finish(point, skipped);
          continue;
        }
        const Study& study = study_;
        pool.start(point, [&study, point] { return study.run_point(point); });
      }
      if (pool.running() == 0) continue;
      const auto child = pool.wait(0.5);
      if (!child) {
        progress.tick();
        continue;
      }
      finish(child->tag, outcome_of_child(*child));
    }
    progress.finish();
  }

  void keep(const nlohmann::json& record) {
    if (folder_) {
      folder_->write(record);
    } else {
      memory_[record.at("point").get<std::size_t>()] = record;
    }
  }

  // The record of point i, checked: its own, else one of another point with the same config (shared or
  // moved, from `others`), preferring one that did not fail.
  std::optional<nlohmann::json> find_record(std::size_t i, const std::string& hash,
                                            const std::unordered_multimap<std::string, RecordFile>& others) {
    if (!folder_) return memory_[i];
    auto own = folder_->read(folder_->record_file(i, hash)).record;
    if (own) return own;
    std::optional<nlohmann::json> found;
    for (auto [at, end] = others.equal_range(hash); at != end; ++at) {
      auto record = folder_->read(at->second).record;
      if (!record) continue;
      if (record->value("status", "") != "failed") return record;
      if (!found) found = std::move(record);
    }
    return found;
  }

  // The summary, from every record that matches a point, in point order. A point without a record of its own
  // whose config has one under another index (the sweep's points moved, or several points share the config)
  // gets one made from its result, under its own name; so does a record made for an earlier version of the
  // study.
  void assemble() {
    std::unique_ptr<SummaryFiles> files;
    std::unique_ptr<SweepJsonWriter> printed;
    const SummaryHeader header{study_.csv_header(), study_.description(), study_.document_format(),
                               options_.inputs};
    if (folder_) {
      files = std::make_unique<SummaryFiles>(folder_->folder(), header);
    } else if (options_.json_out != nullptr) {
      printed = std::make_unique<SweepJsonWriter>(
          *options_.json_out, nlohmann::json{{"sweep", header.description}}, header.format, header.inputs);
    }
    // Records under an index whose point has another hash (the points moved), removed once assembled, and
    // those of configs several points share: normally none, so that assembling keeps nothing per point.
    std::vector<RecordFile> misplaced;
    std::unordered_multimap<std::string, RecordFile> others;
    if (folder_) {
      folder_->scan([&](RecordFile file) {
        const bool placed = file.point < study_.size() && study_.point_hash(file.point) == file.hash;
        if (!placed) misplaced.push_back(file);
        if (!placed || shared_hashes_.count(file.hash) > 0) others.emplace(file.hash, std::move(file));
      });
    }
    // Two passes: the first puts every point's record in place and gathers what the scaling columns need
    // (scaling.hpp: each point against the smallest of its series, which may come after it), the second
    // writes the rows. Neither holds more than a point's record at a time.
    const bool scaling = has_scaling_columns(header.csv_header);
    const std::size_t record_cells = header.csv_header.size() - (scaling ? kScalingCsvColumns.size() : 0);
    std::vector<ScalingInput> scaling_inputs;
    std::vector<std::size_t> with_records;
    for (std::size_t i = 0; i < study_.size(); ++i) {
      auto record = find_record(i, study_.point_hash(i), others);
      if (!record) continue;
      // A row of another length than the header's is of no version of this study: made anew too.
      if (record->value("sweep_hash", "") != sweep_hash_ || record->value("point", nlohmann::json()) != i ||
          record->at("csv").size() != record_cells) {
        record = make_record(study_, i, outcome_of_record(*record), sweep_hash_);
        keep(*record);
      }
      with_records.push_back(i);
      if (scaling) scaling_inputs.push_back(scaling_input_of_run(record->at("run")));
    }
    const auto figures = scaling_figures(scaling_inputs);
    const bool any_figures =
        std::any_of(figures.begin(), figures.end(), [](const auto& f) { return bool(f); });
    std::size_t shard_rows = 0;
    std::optional<std::size_t> first_missing;
    for (std::size_t i = 0, row = 0; i < study_.size(); ++i) {
      const bool in_shard = options_.shard.has(static_cast<int>(i));
      if (row >= with_records.size() || with_records[row] != i) {
        if (in_shard && !first_missing) first_missing = i;
        continue;
      }
      auto record = find_record(i, study_.point_hash(i), others);
      if (scaling) {
        add_scaling(record->at("csv"), record->at("run"), figures[row]);
        if (options_.table) resolved_rows_ += resolved_table_row(record->at("run"), any_figures);
      }
      ++row;
      if (in_shard) ++shard_rows;
      totals_.count(*record);
      if (options_.on_row) options_.on_row(i, outcome_of_record(*record));
      if (files) files->add(record->at("csv"), record->at("run"));
      if (printed) printed->add(record->at("run"));
    }
    if (!resolved_rows_.empty()) resolved_rows_ = resolved_table_header(any_figures) + resolved_rows_;
    // The moved records are under their points' names now.
    for (const auto& file : misplaced) folder_->remove(file);
    totals_.wall_s = seconds_since(started_);
    if (printed) printed->finish(totals_.wall_s);
    if (files) {
      files->commit(totals_.wall_s);
      if (options_.json_out != nullptr) {
        std::ifstream json(files->json_path(), std::ios::binary);
        *options_.json_out << json.rdbuf();
      }
    }
    check_every_point_has_its_row(shard_rows, first_missing);
  }

  // Every point counted done has its row: a run must never report points done that its summary lacks.
  void check_every_point_has_its_row(std::size_t shard_rows, std::optional<std::size_t> first_missing) const {
    const std::size_t done = totals_.done_before + totals_.ran;
    if (shard_rows == done) return;
    throw std::runtime_error(fmt::format(
        "sweep {}: {} points are done but the summary holds {} of them (the first missing: point {}, whose "
        "record is gone or fails its checks); run the sweep again to run the missing points",
        study_.name(), done, shard_rows, first_missing ? fmt::format("{}", *first_missing) : "?"));
  }

  const Study& study_;
  const StudyRunOptions& options_;
  const std::string sweep_hash_;
  std::string resolved_rows_;  // a training sweep's second table, printed after the first
  const Clock::time_point started_;
  std::optional<RecordFolder> folder_;
  std::vector<std::optional<nlohmann::json>> memory_;
  std::unordered_set<std::string> shared_hashes_;  // of configs more than one point has
  std::map<std::size_t, PointOutcome> earlier_;     // done by an earlier run, for the table (in point order)
  StudyRunTotals totals_;
};

}  // namespace

StudyRunTotals run_study(const Study& study, const StudyRunOptions& options) {
  return Runner(study, options).run();
}

}  // namespace tpusim::workloads
