// tpusim fidelity [FILE | DIR]: published measurements of TPU training (workloads/fidelity/measurement.hpp)
// against tpusim's predictions of them: measured and predicted step, error, MFU, and the median |error|.
#include <fmt/format.h>

#include <iostream>
#include <stdexcept>

#include "topologies/support/input_error.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/number_option.hpp"
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
};

void run(const FidelityArgs& args) {
  std::vector<workloads::Measurement> measurements =
      args.path.empty() ? workloads::shipped_measurements() : workloads::load_measurements(args.path);
  const workloads::FidelityStudy study(args.path.empty() ? "shipped" : args.path, std::move(measurements),
                                       args.output);
  if (args.dry_run) {
    std::cout << study.listing();
    return;
  }
  workloads::StudyRunOptions options;
  options.jobs = args.jobs > 0 ? args.jobs : workloads::online_cores();
  options.progress = args.json && args.progress.empty() ? workloads::ProgressMode::none
                                                        : workloads::parse_progress_mode(args.progress);
  options.table = !args.json;
  options.files = !args.no_files;
  options.inputs = {{"measurements", workloads::input_or_null(args.path)}};
  std::vector<workloads::FidelityRow> rows;
  nlohmann::json runs = nlohmann::json::array();
  options.on_row = [&](std::size_t point, const workloads::PointOutcome& outcome) {
    rows.push_back(study.row(point, outcome));
    runs.push_back(study.run_json(point, outcome));
  };
  const auto totals = workloads::run_study(study, options);
  const workloads::FidelitySummary summary = workloads::summarise(rows);
  if (args.json) {
    std::cout << workloads::dump_report(workloads::with_report_context(
                     {{"runs", runs}, {"summary", workloads::to_json(summary)}, {"wall_s", totals.wall_s}},
                     workloads::format::kFidelity, "fidelity", options.inputs))
              << "\n";
  } else {
    std::cout << workloads::summary_text(summary);
    if (options.files) std::cout << fmt::format("results in {}/ (sweep.csv, sweep.json)\n", study.output_dir());
    std::cout << fmt::format("wall time {:.2f} s\n", totals.wall_s);
  }
  std::cout << std::flush;
  if (summary.failed > 0) {
    throw std::runtime_error(fmt::format("fidelity: {} of {} measurements could not be predicted; the first: {}",
                                         summary.failed, rows.size(),
                                         totals.failed > 0 ? totals.first_failure : totals.first_input_error));
  }
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
      "Example: tpusim fidelity --json > fidelity.json\n"
      "Exit status: 0 every measurement was predicted; 1 one could not run; 2 a bad measurement file or "
      "argument; 3 the results cannot be written.");
  command->add_option("measurements", args.path, "A measurement file, or a folder of them (*.yaml)");
  command->add_flag("--dry-run", args.dry_run, "Check every measurement and list them, without running");
  command->add_flag("--json", args.json, "Print the rows and the summary as JSON instead of the table");
  command->add_option("--output", args.output, "Output folder (default results/fidelity)");
  command->add_flag("--no-files", args.no_files, "Write no records, sweep.csv or sweep.json");
  add_whole_number_option(command, "-j,--jobs", args.jobs, 1, kMaxJobs,
                          "Measurements simulated at once, each in its own process (default: the number of "
                          "cores this process may use)");
  command->add_option("--progress", args.progress,
                      "bar, plain or none; default: bar on a terminal, else plain (none with --json)");
  command->callback([] { run(args); });
}

}  // namespace tpusim::cli
