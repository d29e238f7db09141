// tpusim fidelity [FILE | DIR]: published measurements of TPU training
// (workloads/fidelity/training_measurement.hpp) against tpusim's predictions of them: measured and predicted
// step, error, MFU, and the median |error|. tpusim calibrate [FILE | DIR]: the same runs, then a calibration
// profile per device and software release fitted to them, with each measurement's leave-one-out error
// (workloads/fidelity/calibration.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <stdexcept>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/number_option.hpp"
#include "workloads/fidelity/calibration_fit.hpp"
#include "workloads/fidelity/fidelity_study.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/sweep/child_pool.hpp"
#include "workloads/sweep/study_runner.hpp"

namespace tpusim::cli {
namespace {

constexpr int kMaxJobs = 1024;

struct FidelityArgs {
  std::string path;
  bool dry_run = false;
  bool json = false;
  bool no_files = false;
  std::string output = "results/fidelity";
  int jobs = 0;
  std::string progress;
  std::vector<std::string> sets;
};

// The study of the measurements the arguments name: the shipped ones, or a file or folder of them.
std::unique_ptr<workloads::FidelityStudy> make_study(const FidelityArgs& args) {
  std::vector<workloads::ConfigSetting> sets;
  for (const auto& set : args.sets) sets.push_back(workloads::parse_set_option(set));
  std::vector<workloads::TrainingMeasurement> measurements =
      args.path.empty() ? workloads::shipped_measurements() : workloads::load_measurements(args.path);
  for (auto& measurement : measurements) measurement = workloads::with_settings(measurement, sets);
  // A calibration profile with a parameter at the end of its range, once however many measurements use it.
  std::set<std::string> profiles;
  for (const auto& measurement : measurements) {
    const auto& profile = measurement.config.hardware.calibration;
    if (!profile || !profiles.insert(profile->name).second) continue;
    for (const auto& warning : workloads::range_edge_warnings(*profile))
      std::cerr << "tpusim: warning: " << warning << "\n";
  }
  return std::make_unique<workloads::FidelityStudy>(args.path.empty() ? "shipped" : args.path,
                                                    std::move(measurements), args.output);
}

// The measurements' rows: each simulated (or read from its record of an earlier run) in a child process.
struct FidelityRun {
  std::unique_ptr<workloads::FidelityStudy> study;
  std::vector<workloads::FidelityRow> rows;
  nlohmann::json runs = nlohmann::json::array();
  nlohmann::json inputs;
  workloads::StudyRunTotals totals;
};

std::unique_ptr<FidelityRun> run_measurements(const FidelityArgs& args, bool table) {
  auto run = std::make_unique<FidelityRun>();
  run->study = make_study(args);
  workloads::StudyRunOptions options;
  options.jobs = args.jobs > 0 ? args.jobs : workloads::online_cores();
  options.progress = !table && args.progress.empty() ? workloads::ProgressMode::none
                                                     : workloads::parse_progress_mode(args.progress);
  options.table = table;
  options.table_rows_done_before = true;
  options.files = !args.no_files;
  options.inputs = {{"measurements", workloads::input_or_null(args.path)}};
  if (!args.sets.empty()) options.inputs["set"] = args.sets;
  run->inputs = options.inputs;
  const workloads::FidelityStudy& study = *run->study;
  options.on_row = [&run, &study](std::size_t point, const workloads::PointOutcome& outcome) {
    run->rows.push_back(study.row(point, outcome));
    run->runs.push_back(study.run_json(point, outcome));
  };
  run->totals = workloads::run_study(study, options);
  return run;
}

void raise_for(const FidelityRun& run, int failed) {
  if (failed == 0) return;
  throw std::runtime_error(
      fmt::format("{} of {} measurements could not be predicted; the first: {}", failed, run.rows.size(),
                  run.totals.failed > 0 ? run.totals.first_failure : run.totals.first_input_error));
}

void fidelity(const FidelityArgs& args) {
  if (args.dry_run) {
    std::cout << make_study(args)->listing({});
    return;
  }
  const auto run = run_measurements(args, !args.json);
  const workloads::FidelitySummary summary = workloads::summarise(run->rows);
  if (args.json) {
    std::cout << workloads::dump_report(
                     workloads::with_report_context({{"runs", run->runs},
                                                     {"summary", workloads::to_json(summary)},
                                                     {"wall_s", run->totals.wall_s}},
                                                    workloads::format::kFidelity, "fidelity", run->inputs))
              << "\n";
  } else {
    std::cout << workloads::summary_text(summary);
    if (!args.no_files)
      std::cout << fmt::format("results in {}/ (sweep.csv, sweep.json)\n", run->study->output_dir());
    std::cout << fmt::format("wall time {:.2f} s\n", run->totals.wall_s);
  }
  std::cout << std::flush;
  raise_for(*run, summary.failed);
}

// The folder as a path to compare: absolute, with '.', '..' and the links of its existing part resolved.
std::filesystem::path resolved_folder(const std::string& folder) {
  std::error_code error;
  const auto absolute = std::filesystem::absolute(folder, error);
  const auto resolved = std::filesystem::weakly_canonical(absolute, error);
  return (error ? absolute.lexically_normal() : resolved.lexically_normal()) / "";
}

// Whether `inner` is `outer` or a folder under it.
bool within(const std::filesystem::path& inner, const std::filesystem::path& outer) {
  const std::string a = inner.string(), b = outer.string();
  return a.compare(0, b.size(), b) == 0;
}

// The profiles must not land where the next run reads: in the results folder (its records, which a folder
// holding other files is refused as) or in the measurement folder (whose every *.yaml is a measurement).
void refuse_profiles_folder(const std::string& profiles_dir, const FidelityArgs& args) {
  const auto profiles = resolved_folder(profiles_dir);
  if (!args.no_files && within(profiles, resolved_folder(args.output))) {
    throw InputError(
        fmt::format("--profiles {}: inside the results folder {} (--output), whose records the next fidelity "
                    "or calibrate "
                    "reads; give the profiles a folder of their own",
                    profiles_dir, args.output));
  }
  std::error_code error;
  if (!args.path.empty() && std::filesystem::is_directory(args.path, error) &&
      profiles == resolved_folder(args.path)) {
    throw InputError(
        fmt::format("--profiles {}: the measurement folder {}, whose every *.yaml the next run reads as a "
                    "measurement; give "
                    "the profiles a folder of their own",
                    profiles_dir, args.path));
  }
}

void calibrate(const FidelityArgs& args, const std::string& profiles_option) {
  const std::string profiles_dir = profiles_option == "none" ? "" : profiles_option;
  if (!profiles_dir.empty()) {  // before minutes of simulation
    refuse_profiles_folder(profiles_dir, args);
    require_writable_folder(profiles_dir);
  }
  const auto run = run_measurements(args, false);
  const workloads::CalibrationResult result = workloads::calibrate(run->rows);
  for (const auto& profile : result.profiles) {
    for (const auto& warning : workloads::range_edge_warnings(profile))
      std::cerr << "tpusim: warning: " << warning << "\n";
  }
  if (args.json) {
    nlohmann::json body = workloads::to_json(result);
    body["wall_s"] = run->totals.wall_s;
    std::cout << workloads::dump_report(workloads::with_report_context(body, workloads::format::kCalibration,
                                                                       "calibrate", run->inputs))
              << "\n";
  } else {
    std::cout << workloads::calibration_text(result);
  }
  if (!profiles_dir.empty()) {
    for (const auto& profile : result.profiles) {
      const std::string path = profiles_dir + "/" + profile.name + ".yaml";
      write_file_atomically(path, workloads::profile_yaml(profile));
      if (!args.json) std::cout << "wrote " << path << "\n";
    }
  }
  std::cout << std::flush;
  raise_for(*run, workloads::summarise(run->rows).failed);
}

}  // namespace

void add_fidelity_command(CLI::App& app) {
  static FidelityArgs args;
  auto* command = app.add_subcommand(
      "fidelity",
      "Hold tpusim's predictions against published measurements of TPU training: for each measurement its "
      "measured step (or FLOP rate), the predicted step, the error (predicted / measured - 1: negative when "
      "tpusim is too fast), the predicted MFU and the MFU the measurement implies; then the median |error| "
      "over all and per family.\n"
      "Without FILE or DIR, the shipped measurements (workloads/fidelity/measurements/: MLPerf training logs "
      "and the Mesh-TensorFlow paper). A measurement file is YAML: a `measurement:` section (id, family, "
      "source, software, reliability, step_s or flops_per_s, derivation) and a `config:` section, a run "
      "config as 'tpusim run' reads it.\n"
      "Each measurement runs in its own process, -j at once, with a record per measurement in "
      "<output>/points/, so an interrupted run resumes; then <output>/sweep.csv and sweep.json.\n"
      "Exit status: 0 every measurement was predicted, those whose model does not fit its HBM too (their "
      "step is predicted all the same, and their row says NO under fits); 1 a measurement could not run (its "
      "row says why, and the last line names the first); 2 a bad measurement file or argument; 3 the results "
      "cannot be written, or another tpusim is writing them.");
  command->add_option("measurements", args.path, "A measurement file, or a folder of them (*.yaml)");
  command->add_flag("--dry-run", args.dry_run, "Check every measurement and list them, without running");
  command->add_option(
      "--set", args.sets,
      "Change one config key of every measurement's config, KEY=VALUE (repeatable): a what-if "
      "against the measurements, such as --set hardware.op_overhead=1us");
  command->add_flag("--json", args.json, "Print the rows and the summary as JSON instead of the table");
  command->add_option("--output", args.output, "Output folder (default results/fidelity)");
  command->add_flag("--no-files", args.no_files, "Write no records, sweep.csv or sweep.json");
  add_whole_number_option(command, "-j,--jobs", args.jobs, 1, kMaxJobs,
                          "Measurements simulated at once, each in its own process (default: the number of "
                          "cores this process may use)");
  command->add_option("--progress", args.progress,
                      "bar, plain or none; default: bar on a terminal, else plain (none with --json)");
  command->callback([] { fidelity(args); });
}

void add_calibrate_command(CLI::App& app) {
  static FidelityArgs args;
  static std::string profiles = "results/calibration";
  auto* command = app.add_subcommand(
      "calibrate",
      "Fit what tpusim's mechanisms leave unexplained, in the open: per device and software release, four "
      "named, bounded parameters (matrix_unit_efficiency 0.3-1, hbm_efficiency 0.5-1, op_overhead_s 0-10us, "
      "step_overhead_s 0-50ms) by least squares on log step time over the measurements of that group "
      "(workloads/fidelity/calibration.hpp). Prints every profile's values and, per measurement, the "
      "uncalibrated step, the step under its group's profile and its leave-one-out prediction (a profile "
      "fitted without it; uncalibrated when it is alone in its group), then writes one profile per group "
      "(YAML) to --profiles.\n"
      "The measurements run as 'tpusim fidelity' runs them, sharing its records (--output).\n"
      "Exit status: 0 done; 1 a measurement could not run; 2 a bad measurement file or argument; 3 the "
      "results or profiles cannot be written, or another tpusim is writing them.");
  command->add_option("measurements", args.path, "A measurement file, or a folder of them (*.yaml)");
  command->add_flag("--json", args.json, "Print the profiles and rows as JSON");
  command->add_option("--output", args.output,
                      "Records folder, shared with tpusim fidelity (default results/fidelity)");
  command->add_flag("--no-files", args.no_files, "Write no records");
  command->add_option(
      "--profiles", profiles,
      "Folder for the fitted profiles, apart from --output and the measurement folder (default "
      "results/calibration; none to write none)");
  add_whole_number_option(command, "-j,--jobs", args.jobs, 1, kMaxJobs,
                          "Measurements simulated at once, each in its own process");
  command->add_option("--progress", args.progress, "bar, plain or none (default: bar on a terminal)");
  command->callback([] { calibrate(args, profiles); });
}

}  // namespace tpusim::cli
