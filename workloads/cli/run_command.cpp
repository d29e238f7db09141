// tpusim run [config.yaml | --preset NAME]: one training run of a config on the simulated pod, with its
// report and result files. Without a config it runs the built-in default, the paper's 4.9B language model
// (lm-s5) for one timing-only step on the 512-core TPU v2 pod.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "topologies/support/child_process.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text_file.hpp"
#include "topologies/support/units.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/schema_option.hpp"
#include "workloads/cli/number_option.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/models/model_formulas.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/report/result_files.hpp"
#include "workloads/report/schema_text.hpp"
#include "workloads/report/step_reporter.hpp"
#include "workloads/report/step_explanation.hpp"
#include "workloads/report/trace_plan.hpp"
#include "workloads/report/trace_selection.hpp"
#include "workloads/search/search_spec.hpp"
#include "workloads/training_run.hpp"

namespace tpusim::cli {
namespace {

struct RunArgs {
  std::string config_path;
  std::string preset;
  bool list_presets = false;
  bool show_preset = false;
  bool schema = false;
  bool json = false;
  bool no_files = false;
  bool explain = false;
  std::string output;
  int steps = 0;
  std::string trace_chips;  // "" when not given: classes
  std::string faults;
  std::string progress;
  std::vector<std::string> sets;
};

void list_presets() {
  for (const auto& name : workloads::preset_names()) {
    const auto config = workloads::load_preset(name);
    std::cout << fmt::format("{:<16} {}{}\n", name, config.description,
                             name == workloads::default_preset_name() ? " [default]" : "");
  }
}

void run(const RunArgs& args) {
  if (args.list_presets) return list_presets();
  if (args.schema) {
    return print_key_schema(args.json, !args.config_path.empty() || !args.preset.empty(),
                            "run: --schema prints the config schema; do not give a config or --preset",
                            workloads::print_schema, workloads::schema_json);
  }
  if (!args.config_path.empty() && !args.preset.empty()) {
    throw InputError("run: give a config file or --preset, not both");
  }
  const std::string preset = args.preset.empty() ? workloads::default_preset_name() : args.preset;
  if (args.show_preset) {
    if (!args.config_path.empty())
      throw InputError("run: --show-preset prints a preset; do not give a config file");
    std::cout << workloads::preset_text(preset);
    return;
  }
  // What determines the result, for the context block of the summary: the config file or the preset (the
  // default one when neither is given), and --steps.
  const nlohmann::json inputs = {
      {"config", workloads::input_or_null(args.config_path)},
      {"preset", args.config_path.empty() ? nlohmann::json(preset) : nlohmann::json(nullptr)},
      {"steps", args.steps > 0 ? nlohmann::json(args.steps) : nlohmann::json(nullptr)},
      {"faults", workloads::input_or_null(args.faults)},
      {"set", args.sets.empty() ? nlohmann::json(nullptr) : nlohmann::json(args.sets)}};
  std::vector<workloads::ConfigSetting> sets;
  for (const auto& set : args.sets) sets.push_back(workloads::parse_set_option(set));
  // A config written for tpusim search runs as it is: its search section is checked and set aside.
  workloads::RunConfig config =
      args.config_path.empty()
          ? workloads::load_search_input(workloads::preset_text(preset), workloads::preset_source(preset),
                                         workloads::OpenMesh::refused, sets)
                .base
          : workloads::load_search_input(read_input_file(args.config_path, "config file"), args.config_path,
                                         workloads::OpenMesh::refused, sets)
                .base;
  for (const auto& warning : config.warnings) std::cerr << "tpusim: warning: " << warning << "\n";
  if (args.steps > 0) {
    config.training.steps = args.steps;
    // The config's own steps were checked against the full-numerics limit as it was read; these replace them.
    if (config.training.numerics == workloads::NumericsMode::full) {
      const auto cost = workloads::full_numerics_cost(config.model, config.training);
      if (!cost.fits()) throw InputError("--steps: " + cost.problem());
    }
  }
  if (!args.faults.empty()) config.hardware.topology = config.hardware.topology.with_faults(args.faults);
  if (!args.output.empty()) config.training.output_dir = args.output;
  // Before simulating: a results folder that cannot be written is reported now, not after the work.
  std::unique_ptr<StagedFolder> results;
  if (!args.no_files) results = workloads::stage_result_folder(config.training.output_dir);

  // The option's validator refused a bad value as the command line was parsed, before any work.
  const auto trace = args.trace_chips.empty() ? workloads::TraceSelection{}
                                              : workloads::parse_trace_selection(args.trace_chips);
  workloads::RunOptions options;
  const auto progress_mode = args.json && args.progress.empty() ? workloads::ProgressMode::none
                                                                : workloads::parse_progress_mode(args.progress);
  workloads::StepReporter reporter(progress_mode, config.name, config.training.steps,
                        config.training.numerics == workloads::NumericsMode::full,
                        args.json ? std::cerr : std::cout);
  options.on_step = [&](const workloads::StepRecord& step) { reporter.step_done(step); };
  // On a pod with faults, the healthy pod's step first, in a child: one simulation per process.
  double healthy_s = 0;
  if (!config.hardware.topology.faults().empty()) {
    workloads::RunConfig healthy = config;
    healthy.hardware.topology = healthy.hardware.topology.with_faults("");
    healthy.training.numerics = workloads::NumericsMode::timing;
    healthy.training.steps = 1;
    const auto child = run_in_child(
        [&] { return fmt::format("{:.17g}", workloads::run_training(healthy).timeline.step_time_s); });
    healthy_s = std::stod(child.output);
  }
  workloads::RunReport report = workloads::run_training(config, options);
  reporter.finish();
  report.healthy_step_time_s = healthy_s;
  if (args.json) {
    std::cout << workloads::dump_report(workloads::run_report_json(config, report, inputs)) << "\n";
  } else {
    workloads::print_run_report(std::cout, config, report);
    if (args.explain) {
      workloads::print_explanation(
          std::cout, workloads::explain_step(report.timeline, config.hardware.device.peak_flops()));
    }
  }
  if (!args.no_files) {
    const auto paths = workloads::write_result_files(*results, config, report, trace, inputs);
    if (!args.json) {
      std::cout << fmt::format("results in {}/ (summary.json, collectives.csv, trace.json{})\n", paths.folder,
                               workloads::plan_trace(config.hardware.topology, trace).summary());
    }
  }
  std::cout << std::flush;
  if (!report.memory.fits()) {
    throw std::runtime_error(
        fmt::format("{} does not fit: it needs {} per core, {} more than the {} of HBM of a {} core",
                    config.name, format_bytes(double(report.memory.total_bytes)),
                    format_bytes(double(report.memory.total_bytes - report.memory.hbm_bytes)),
                    format_bytes(double(report.memory.hbm_bytes)), config.hardware.device.name()));
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  static RunArgs args;
  auto* command = app.add_subcommand(
      "run",
      "Simulate training steps of a model config on a simulated pod and report step time, its breakdown, "
      "MFU, "
      "memory per core and collectives.\n"
      "Without a config: the built-in default, lm-s5 (the paper's 4.9B-parameter language model, mesh "
      "batch:16;model:32) for one timing-only step on the 512-core TPU v2 pod.\n"
      "Writes <output>/summary.json, collectives.csv and trace.json (Chrome trace: open it in "
      "https://ui.perfetto.dev or chrome://tracing; --trace-chips says which chips it shows); output is "
      "training.output of the config, default results/<name>.\n"
      "The output folder is written as one unit: staged beside it and renamed into place, replacing an "
      "earlier run's folder (a folder holding other files is refused).\n"
      "Exit status: 0 done; 1 the model does not fit the HBM of its device (the report is still printed, "
      "flagged DOES NOT FIT, and the files written) or a runtime failure; 2 a bad config or argument "
      "(one line: file:line: key: problem); 3 the results cannot be written, or another tpusim is writing them (checked before simulating).");
  command->add_option("config", args.config_path, "Config file (YAML); --schema lists its keys");
  command->add_option("--preset", args.preset, "Run a shipped preset (see --list-presets)");
  command->add_option("--set", args.sets,
                      "Change one config key, KEY=VALUE with a dotted key as the config writes it (repeatable; "
                      "checked as the key is): --set model.d_ff=8192 --set hardware.topology=tpu-v3-512");
  command->add_flag("--list-presets", args.list_presets, "List the shipped presets and exit");
  command->add_flag("--show-preset", args.show_preset,
                    "Print the YAML of --preset (or of the default) and exit");
  command->add_flag("--schema", args.schema,
                    "Print the config schema (every key, its type, default and meaning; with --json as JSON) "
                    "and exit");
  command->add_flag("--json", args.json, "Print the summary (or --schema) as JSON instead of text");
  command->add_option("--output", args.output, "Output folder (overrides training.output)");
  add_whole_number_option(command, "--steps", args.steps, 1, workloads::kMaxSteps,
                          "Number of steps (overrides training.steps)", "the most steps a run may have");
  command
      ->add_option("--trace-chips", args.trace_chips,
                   "classes, all or N: which chips trace.json shows. classes (default): since every chip runs "
                   "the same timeline, one chip's tracks per class of chips, standing for the others: the "
                   "healthy chips, and each kind of fault (a straggler, a down link, a slow link) with the "
                   "chips it touches; all: every chip (84 MB for the default run); N: the first N chips (0 = "
                   "all)")
      ->type_name("TEXT")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (text.empty()) return "";  // main's check of every option names an empty value
            try {
              workloads::parse_trace_selection(text);
              return "";
            } catch (const InputError& error) {
              return error.what();
            }
          },
          "", ""));
  command->add_option(
      "--faults", args.faults,
      "Faults of the pod (overrides hardware.faults): down:3.4+x, slow:3.4+x:0.5, "
      "straggler:3.4:1.5, random:4:7, ';'-separated; the healthy pod's step is reported beside");
  command->add_flag("--no-files", args.no_files, "Do not write result files");
  command->add_option("--progress", args.progress,
                      "bar, plain or none: how far the steps are, on stderr, once the run has taken 2 s "
                      "(default: bar on a terminal, plain otherwise, none with --json)");
  command->add_flag(
      "--explain", args.explain,
      "Explain the step time: by bound (matrix unit, vector unit, FLOP rate, HBM bandwidth, per-op overhead, "
      "exposed "
      "communication, idle) and by op kind, the 20 longest ops with their FLOPs, bytes, achieved "
      "rate and bound, and the ops that waited for each exposed collective (also in summary.json "
      "and --json as \"explain\")");
  command->callback([] { run(args); });
}

}  // namespace tpusim::cli
