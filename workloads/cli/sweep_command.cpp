// tpusim sweep [sweep.yaml | --preset NAME]: runs every point of a study (a training sweep, sweep_spec.hpp,
// or a collective study, collective_study_spec.hpp), N points at a time, each in its own child process, with
// a record per point so that running it again runs only what is missing; `tpusim sweep merge` joins the
// folders of a sweep's shards.
#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <stdexcept>

#include "topologies/support/child_time_limit.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/folder_lock.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/schema_option.hpp"
#include "workloads/cli/number_option.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/sweep/sweep_schema.hpp"
#include "workloads/report/sweep_plots.hpp"
#include "workloads/sweep/child_pool.hpp"
#include "workloads/sweep/dry_run.hpp"
#include "workloads/sweep/study.hpp"
#include "workloads/sweep/study_runner.hpp"
#include "workloads/sweep/sweep_catalog.hpp"
#include "workloads/sweep/sweep_merge.hpp"
#include "workloads/sweep/sweep_report.hpp"

namespace tpusim::cli {
namespace {

constexpr int kMaxJobs = 1024;

struct SweepArgs {
  std::string sweep_path;
  std::string preset;
  bool list = false;
  bool show = false;
  bool schema = false;
  bool dry_run = false;
  bool json = false;
  bool no_files = false;
  std::string output;
  int jobs = 0;  // 0: not given, the number of cores
  std::string shard;
  std::string progress;
  int plot_time_limit_s = 0;  // 0: not given, TPUSIM_GNUPLOT_TIME_LIMIT_S or a minute
  std::vector<std::string> sets;
};

struct MergeArgs {
  std::vector<std::string> folders;  // the output, then the shards
  int plot_time_limit_s = 0;         // as SweepArgs
};

void list_sweeps() {
  for (const auto& name : workloads::sweep_preset_names()) {
    const auto study = workloads::load_study_preset(name);
    const std::string description = study->description().value("description", "");
    std::cout << fmt::format("{:<16} {:>4} points  {}\n", name, study->size(), description);
  }
}

// The exit status of a finished run: 1 if a point failed at run time, 2 if one could not run (a problem of
// its config only the engine finds), else 0; the files are written either way.
void raise_for(const std::string& name, const workloads::RecordCounts& counts) {
  if (counts.failed > 0) {
    throw std::runtime_error(fmt::format("sweep {}: {} of {} points failed; the first: {}", name,
                                         counts.failed, counts.rows, counts.first_failure));
  }
  if (counts.input_errors > 0) {
    throw InputError(fmt::format("{}; {} of {} points could not run", counts.first_input_error,
                                 counts.input_errors, counts.rows));
  }
}

// The sweep's results are written before its plots: gnuplot failing or passing its time limit is one warning
// line, not a lost or failed sweep (report.md then lists the plots' scripts; `tpusim plot DIR` draws them
// again); without gnuplot the report says so and one line too. A folder that cannot take the plots (a full
// disk) is an environment failure, though the results are in.
void draw_plots(const std::string& folder, workloads::SweepPlotOptions options) {
  options.scripts_when_gnuplot_fails = true;
  try {
    const auto outputs = workloads::draw_sweep_outputs(folder, std::cerr, options);
    if (!outputs.gnuplot_failure.empty()) {
      std::cerr << fmt::format(
          "tpusim: warning: plots not drawn: {} (the results stand; 'tpusim plot {}' draws them again)\n",
          outputs.gnuplot_failure, folder);
    }
  } catch (const EnvironmentError& error) {
    throw EnvironmentError(
        fmt::format("{} (the results are written: {}/sweep.csv and sweep.json)", error.what(), folder));
  }
}

void run(const SweepArgs& args) {
  if (args.list) return list_sweeps();
  if (args.schema) {
    return print_key_schema(args.json, !args.sweep_path.empty() || !args.preset.empty(),
                            "sweep: --schema prints the keys of a sweep file; do not give a sweep or "
                            "--preset",
                            workloads::print_sweep_schema, workloads::sweep_schema_json);
  }
  if (args.sweep_path.empty() == args.preset.empty()) {
    throw InputError(
        "sweep: give a sweep file or --preset NAME (one of them; see 'tpusim sweep --list' and --help)");
  }
  if (args.show) {
    if (args.preset.empty()) throw InputError("sweep: --show prints a shipped sweep; give --preset NAME");
    std::cout << workloads::sweep_preset_text(args.preset);
    return;
  }
  workloads::StudyRunOptions options;
  options.shard = args.shard.empty() ? workloads::SweepShard{} : workloads::parse_shard(args.shard);
  options.progress = args.json && args.progress.empty() ? workloads::ProgressMode::none
                                                        : workloads::parse_progress_mode(args.progress);
  options.jobs = args.jobs > 0 ? args.jobs : workloads::online_cores();
  // The time limits' settings are read before anything runs or is written: a bad one is bad input.
  child_time_limit_s();
  const workloads::SweepPlotOptions plot_options = sweep_plot_options(args.plot_time_limit_s);
  // Every point is resolved here, before anything runs: a bad point stops the sweep with its location.
  std::vector<workloads::ConfigSetting> sets;
  for (const auto& set : args.sets) sets.push_back(workloads::parse_set_option(set));
  auto study = args.preset.empty() ? workloads::load_study_file(args.sweep_path, sets)
                                   : workloads::load_study_preset(args.preset, sets);
  if (!args.output.empty()) {
    study->set_output_dir(args.output);
  } else if (!options.shard.whole()) {
    // A shard's records go to a folder of their own, beside the sweep's.
    study->set_output_dir(
        fmt::format("{}-shard-{}-of-{}", study->output_dir(), options.shard.k, options.shard.n));
  }
  if (args.dry_run) {
    std::cout << study->listing(workloads::dry_run_checks(*study, options.jobs));
    return;
  }
  options.table = !args.json;
  options.files = !args.no_files;
  options.inputs = {{"sweep", workloads::input_or_null(args.sweep_path)},
                    {"preset", workloads::input_or_null(args.preset)}};
  if (!args.sets.empty()) options.inputs["set"] = args.sets;
  if (args.json) options.json_out = &std::cout;
  // From the first record to the last plot: another tpusim writing the folder meanwhile refuses at once.
  std::optional<FolderLock> lock;
  if (options.files) lock.emplace(study->output_dir());
  const auto totals = workloads::run_study(*study, options);
  if (options.files) draw_plots(study->output_dir(), plot_options);
  if (!args.json) {
    if (options.files)
      std::cout << fmt::format("results in {}/ (sweep.csv, sweep.json, report.md, plots/)\n",
                               study->output_dir());
    std::cout << fmt::format("wall time {:.2f} s\n", totals.wall_s);
  }
  std::cout << std::flush;
  raise_for(study->name(), totals);
}

void merge(const MergeArgs& args) {
  if (args.folders.size() < 2) {
    throw InputError(
        "sweep merge: give the output folder, then the shard folders to join (tpusim sweep merge "
        "OUT DIR1 DIR2 ...)");
  }
  const workloads::SweepPlotOptions plot_options = sweep_plot_options(args.plot_time_limit_s);
  const std::vector<std::string> shards(args.folders.begin() + 1, args.folders.end());
  const auto totals = workloads::merge_sweep_folders(args.folders.front(), shards);
  // The merge held it while writing; the plots are drawn under it too.
  const FolderLock lock(args.folders.front());
  draw_plots(args.folders.front(), plot_options);
  std::cout << fmt::format(
      "merged {} folders of sweep {}: {} points ({} ok{}{}{}); results in {}/ (sweep.csv, sweep.json, "
      "report.md, plots/)\n",
      shards.size(), totals.sweep, totals.rows, totals.ok,
      totals.skipped > 0 ? fmt::format(", {} skipped", totals.skipped) : "",
      totals.failed > 0 ? fmt::format(", {} failed", totals.failed) : "",
      totals.input_errors > 0 ? fmt::format(", {} could not run", totals.input_errors) : "",
      args.folders.front());
  std::cout << std::flush;
  raise_for(totals.sweep, totals);
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  static SweepArgs args;
  static MergeArgs merge_args;
  auto* command = app.add_subcommand(
      "sweep",
      "Simulate every point of a sweep: a base config and config keys to vary, such as mesh shapes, layouts, "
      "topologies or model sizes; or, with 'kind: collectives', collectives x algorithms x sizes x "
      "topologies. "
      "One row per point: step time, MFU, exposed communication, memory per core against HBM (a point that "
      "does not fit is a row with fits NO, not a failure); for collectives the simulated time, busbw and the "
      "ratios to the alpha-beta prediction and the lower bound.\n"
      "A sweep file (YAML):\n"
      "  name: my-sweep              # optional, default: the file name\n"
      "  base: lm-s5                 # a preset (tpusim run --list-presets) or a config file, relative to "
      "the sweep file\n"
      "  vary:                       # dotted config key -> list of values\n"
      "    mesh.shape: [batch:32;model:16, batch:16;model:32]\n"
      "    model.d_ff: [65536, 262144]\n"
      "  output: results/my-sweep    # optional, default results/<name>\n"
      "The points are the cartesian product of the lists, the first key varying slowest. Every point is "
      "checked like 'tpusim run' checks a config before any runs; each runs in its own process, -j at once.\n"
      "A collective study: kind: collectives, and vary over collective.op, collective.algorithm, "
      "collective.bytes, collective.group_axes, collective.reduce, hardware.topology, hardware.network "
      "(see --preset allreduce-torus --show).\n"
      "Writes <output>/points/<index>-<hash>.json, a record per point as it finishes (the hash is of the "
      "point's resolved config and the tpusim version), then <output>/sweep.csv (point, the varied keys, " +
          join(workloads::sweep_csv_columns_after_keys()) +
          ") and sweep.json, assembled from the records; speedup and efficiency are against the smallest "
          "point (fewest cores) of each series, the points that differ only in the keys that set the core "
          "count, weak or strong scaling by whether the work per step grows with the cores. Running a sweep "
          "again runs only the points without a valid record (or whose record is a failure), so an "
          "interrupted sweep resumes; points whose configs coincide share a result and each keeps its row. "
          "Records carry a checksum: one edited or damaged is named on stderr and its point runs again. While "
          "a sweep writes its folder, another tpusim writing it refuses at once.\n"
          "Shipped sweeps (described by --list, run with --preset NAME): " +
          join(workloads::sweep_preset_names()) +
          ".\n"
          "Exit status: 0 every point ran; 1 a point failed at run time, or the summary lacks a point counted "
          "done; 2 a bad sweep file, point or argument, or a layout only the engine rejects (found when that "
          "point runs: the others still run and the files are written) (one line: file:line: vary.KEY[I]: "
          "problem); 3 the results cannot be written, or another tpusim is writing them (checked before any "
          "point runs, or found while drawing the plots: disk full).\n"
          "Time limits: each point runs in a child process killed after TPUSIM_CHILD_TIME_LIMIT_S seconds "
          "(default a day; such a point fails saying so, and runs again when the sweep is run again), "
          "gnuplot after --plot-time-limit (the plots are then missing, with a warning).");
  command->add_option("sweep", args.sweep_path, "Sweep file (YAML)");
  command->add_option("--preset", args.preset, "Run a shipped sweep (see --list)");
  command->add_option("--set", args.sets,
                      "Change one config key of every point, KEY=VALUE (repeatable), as the sweep's set: does; a "
                      "key the sweep varies cannot be set");
  command->add_flag("--list", args.list, "List the shipped sweeps and exit");
  command->add_flag("--show", args.show, "Print the YAML of the shipped sweep --preset and exit");
  command->add_flag("--schema", args.schema,
                    "Print the keys of a sweep file (training and collectives) with their types and "
                    "defaults, and exit (--json for JSON)");
  command->add_flag("--dry-run", args.dry_run,
                    "Check every point and list them without simulating, each with what it will do: run, "
                    "fail (and why: a layout the engine rejects), not fit its HBM (its memory per core), be "
                    "skipped (and why), or nothing, its record being in the output folder already");
  command->add_flag("--json", args.json, "Print sweep.json instead of the table");
  command->add_option("--output", args.output,
                      "Output folder (overrides the sweep's output; with --shard K/N the default is "
                      "<output>-shard-K-of-N)");
  command->add_flag("--no-files", args.no_files, "Write no records, sweep.csv or sweep.json");
  add_whole_number_option(command, "-j,--jobs", args.jobs, 1, kMaxJobs,
                          "Points simulated at once, each in its own process (default: the number of cores "
                          "this process may use)");
  command->add_option("--shard", args.shard,
                      "Run only shard K of N: the points whose index % N is K-1 (K from 1, as Slurm's "
                      "SLURM_ARRAY_TASK_ID); join the shards' folders with 'tpusim sweep merge'");
  add_plot_time_limit_option(command, args.plot_time_limit_s);
  command->add_option("--progress", args.progress,
                      "bar (one line redrawn in place on stderr), plain (lines, for logs) or none; default: "
                      "bar on a terminal, else plain (none with --json)");
  auto* merge_command = command->add_subcommand(
      "merge",
      "Join the output folders of a sweep's shards (tpusim sweep --shard K/N) into OUT: every record, then "
      "sweep.csv and sweep.json assembled from them, as one unit. Folders of different sweeps (or versions "
      "of one), two folders with different results for a point, a record or manifest that fails its checks, "
      "or a point in none of them are errors (exit status 2) and nothing is written.");
  merge_command->add_option("folders", merge_args.folders, "OUT DIR1 DIR2 ...")->required();
  merge_command->callback([] {
    merge_args.plot_time_limit_s = args.plot_time_limit_s;
    merge(merge_args);
  });
  command->callback([merge_command] {
    if (merge_command->parsed()) return;
    run(args);
  });
}

}  // namespace tpusim::cli
