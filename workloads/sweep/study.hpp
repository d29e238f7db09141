#pragma once
// What `tpusim sweep` runs: a study of points, each resolved before anything runs and each simulated in a
// child process of its own. Two kinds, chosen by the sweep file's `kind` key:
//   training     (the default) a base config and config keys to vary (sweep_spec.hpp): a training step per
//                point (training_study.hpp)
//   collectives  collective operations x algorithms x message sizes x topologies x group axes, each against
//                its alpha-beta prediction and lower bound (collective_study.hpp)
// The runner (study_runner.hpp), the records (record_folder.hpp), sharding and merging see only this
// interface: a point's hash, its run in the child, and its row from the result.
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/config/config_layers.hpp"

namespace tpusim::workloads {

// What `tpusim sweep --dry-run` found a point would do (dry_run.hpp), and why when it does not simply run.
struct PointCheck {
  enum class Verdict { runs, done_earlier, skipped, fails, does_not_fit };
  Verdict verdict = Verdict::runs;
  std::string reason;  // "" for runs
};

// What running a point gave, as its record keeps it.
struct PointOutcome {
  std::string status;     // "ok", "failed" (at run time), "input_error" (found when it ran), "skipped"
  nlohmann::json result;  // ok: the child's figures (run_point's JSON), else null
  std::string error;      // failed, input_error: the error; skipped: why the point does not run
  double wall_s = 0;      // fork to exit of its child, measured by the parent
  double peak_rss_mib = 0;

  bool ok() const { return status == "ok"; }
};

class Study {
 public:
  virtual ~Study() = default;

  virtual const std::string& name() const = 0;
  virtual std::string kind() const = 0;  // "training", "collectives"
  virtual const std::string& output_dir() const = 0;
  virtual void set_output_dir(const std::string& folder) = 0;
  virtual std::size_t size() const = 0;
  // The varied keys and a point's values for them, as written (the table's and CSV's first columns).
  virtual std::vector<std::string> keys() const = 0;
  virtual std::vector<std::string> values(std::size_t point) const = 0;
  // A hash of everything that determines the point's result: its resolved config (not how it was written)
  // and the tpusim version. A record is valid for the point while the hash is the same.
  virtual std::string point_hash(std::size_t point) const = 0;
  // Non-empty when the point does not run, and why (a collective algorithm that does not fit its group):
  // a row, not a failure.
  virtual std::string skip_reason(std::size_t point) const { return ""; }
  // In the child: simulates the point and returns its figures as JSON text. InputError for a problem only
  // the simulation finds.
  virtual std::string run_point(std::size_t point) const = 0;
  // In a child too, for --dry-run: what running the point would find without simulating a step (a layout
  // the engine rejects, as InputError; "" or why a point that runs cannot train, as "does not fit its HBM:
  // ..."). Only called when checks_points().
  virtual bool checks_points() const { return false; }
  virtual std::string check_point(std::size_t /*point*/) const { return ""; }

  // The report. A CSV row is a JSON array of cells: strings are text, numbers numbers, booleans true/false
  // and null an empty cell (sweep_summary.hpp writes them).
  virtual std::vector<std::string> csv_header() const = 0;
  virtual nlohmann::json csv_cells(std::size_t point, const PointOutcome& outcome) const = 0;
  virtual nlohmann::json run_json(std::size_t point, const PointOutcome& outcome) const = 0;
  virtual nlohmann::json description() const = 0;  // sweep.json's "sweep" block
  virtual const char* document_format() const = 0;
  virtual std::string banner() const = 0;  // "tpusim sweep tiny: 2 points, base tiny-mlp"
  virtual std::string table_header() const = 0;
  virtual std::string table_row(std::size_t point, const PointOutcome& outcome) const = 0;
  // --dry-run: every point, resolved, with what it will do (checks: one per point, or none to say nothing).
  virtual std::string listing(const std::vector<PointCheck>& checks) const = 0;
  // Files the study's command writes in its folder beside the summary (tpusim validate's validate.csv),
  // which a rerun finds there and must accept.
  virtual std::vector<std::string> report_files() const { return {}; }
};

// The hash of the whole study: its kind, keys, CSV columns, and every point's values and hash. Shards of one
// sweep carry the same hash; `tpusim sweep merge` joins only folders that do.
std::string study_hash(const Study& study);

// The study a sweep file holds, dispatched on its `kind` key (absent: training). InputError for a file that
// cannot be read or a study with a bad point, at its line.
// `sets`: the command line's --set values, for every point of a training sweep (InputError for a
// collective study).
std::unique_ptr<Study> load_study_file(const std::string& path, const std::vector<ConfigSetting>& sets = {});
// A shipped sweep, workloads/sweeps/.
std::unique_ptr<Study> load_study_preset(const std::string& name, const std::vector<ConfigSetting>& sets = {});
std::unique_ptr<Study> parse_study(const std::string& yaml_text, const std::string& file,
                                   const std::vector<ConfigSetting>& sets = {});

}  // namespace tpusim::workloads
