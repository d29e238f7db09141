// tpusim sweep [sweep.yaml | --preset NAME]: runs every point of a sweep (a base config and values to vary,
// workloads/sweep/sweep_spec.hpp), each in its own child process, and reports one row per point.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <stdexcept>

#include "topologies/support/input_error.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/sweep/sweep_catalog.hpp"
#include "workloads/sweep/sweep_report.hpp"
#include "workloads/sweep/sweep_run.hpp"

namespace tpusim::cli {
namespace {

struct SweepArgs {
  std::string sweep_path;
  std::string preset;
  bool list = false;
  bool show = false;
  bool dry_run = false;
  bool json = false;
  bool no_files = false;
  std::string output;
};

void list_sweeps() {
  for (const auto& name : workloads::sweep_preset_names()) {
    const auto sweep = workloads::load_sweep_preset(name);
    std::cout << fmt::format("{:<16} {} points  {}\n", name, sweep.points.size(), sweep.description);
  }
}

void print_points(const workloads::Sweep& sweep) {
  std::cout << fmt::format("sweep {}: {} points of {} (base {}), all valid\n", sweep.name,
                           sweep.points.size(), sweep.source, sweep.base);
  for (const auto& point : sweep.points) {
    const auto& c = point.config;
    std::cout << fmt::format("{:>4}  {}  -> {} ({} cores), mesh {}, layout {}\n", point.index,
                             point.describe(sweep.axes), c.hardware.topology.name(),
                             c.hardware.topology.num_cores(), c.mesh.shape_text(), c.mesh.layout_text());
  }
}

void run(const SweepArgs& args) {
  if (args.list) return list_sweeps();
  if (args.sweep_path.empty() == args.preset.empty()) {
    throw InputError(
        "sweep: give a sweep file or --preset NAME (one of them; see 'tpusim sweep --list' and --help)");
  }
  if (args.show) {
    if (args.preset.empty()) throw InputError("sweep: --show prints a shipped sweep; give --preset NAME");
    std::cout << workloads::sweep_preset_text(args.preset);
    return;
  }
  // Every point is resolved here, before anything runs: a bad point stops the sweep with its location.
  workloads::Sweep sweep = args.preset.empty() ? workloads::load_sweep_file(args.sweep_path)
                                               : workloads::load_sweep_preset(args.preset);
  if (!args.output.empty()) sweep.output_dir = args.output;
  if (args.dry_run) return print_points(sweep);
  // Before any point runs: a results folder that cannot be written is reported now, not after the work.
  std::unique_ptr<StagedFolder> results_folder;
  if (!args.no_files) results_folder = workloads::stage_sweep_folder(sweep.output_dir);

  if (!args.json) {
    std::cout << fmt::format("tpusim sweep {}: {} points, base {}{}\n", sweep.name, sweep.points.size(),
                             sweep.base, sweep.description.empty() ? "" : " (" + sweep.description + ")")
              << workloads::sweep_table_header(sweep) << std::flush;
  }
  const auto started = std::chrono::steady_clock::now();
  const auto results = workloads::run_sweep(
      sweep, [&](const workloads::SweepPoint& point, const workloads::PointResult& result) {
        if (!args.json) std::cout << workloads::sweep_table_row(sweep, point, result) << std::flush;
      });
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  if (args.json) std::cout << workloads::sweep_json(sweep, results, wall_s).dump(2) << "\n";
  if (!args.no_files) {
    const auto paths = workloads::write_sweep_files(*results_folder, sweep, results, wall_s);
    if (!args.json) std::cout << fmt::format("results in {}/ (sweep.csv, sweep.json)\n", paths.folder);
  }
  if (!args.json) std::cout << fmt::format("wall time {:.2f} s\n", wall_s);
  std::cout << std::flush;

  int input_errors = 0, failures = 0;
  std::string first_input_error, first_failure;
  for (const auto& result : results) {
    if (result.error.empty()) continue;
    std::string& first = result.input_error ? first_input_error : first_failure;
    (result.input_error ? input_errors : failures) += 1;
    if (first.empty()) first = result.error;
  }
  if (failures > 0) {
    throw std::runtime_error(fmt::format("sweep {}: {} of {} points failed; the first: {}", sweep.name,
                                         failures, results.size(), first_failure));
  }
  if (input_errors > 0) {
    throw InputError(
        fmt::format("{}; {} of {} points could not run", first_input_error, input_errors, results.size()));
  }
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  static SweepArgs args;
  auto* command = app.add_subcommand(
      "sweep",
      "Simulate every point of a sweep: a base config and config keys to vary, such as mesh shapes, layouts, "
      "topologies or model sizes. One row per point: step time, MFU, exposed communication, memory per core "
      "against HBM (a point that does not fit is a row with fits NO, not a failure).\n"
      "A sweep file (YAML):\n"
      "  name: my-sweep              # optional, default: the file name\n"
      "  base: lm-s5                 # a preset (tpusim run --list-presets) or a config file, relative to "
      "the sweep file\n"
      "  vary:                       # dotted config key -> list of values\n"
      "    mesh.shape: [batch:32;model:16, batch:16;model:32]\n"
      "    model.d_ff: [65536, 262144]\n"
      "  output: results/my-sweep    # optional, default results/<name>\n"
      "The points are the cartesian product of the lists, the first key varying slowest. Every point is "
      "checked like 'tpusim run' checks a config before any runs; each runs in its own process.\n"
      "Writes <output>/sweep.csv (point, the varied keys, topology, cores, mesh_shape, layout, parameters, "
      "step_time_s, compute_s, communication_s, exposed_communication_s, exposed_communication_fraction, "
      "idle_s, model_flops_per_step, mfu, memory_per_core_bytes, hbm_per_core_bytes, fits, "
      "collective_calls, wall_s, error) and sweep.json.\n"
      "Shipped sweeps (--list, run with --preset NAME): lm-s5-mesh, the 4.9B LM on the 512-core tpu-v2-pod "
      "over five mesh shapes; lm-s2-layout, the 0.67B LM on tpu-v2-32 over mesh shape and mapping.\n"
      "The output folder is written as one unit, like tpusim run's.\n"
      "Exit status: 0 every point ran; 1 a point failed at run time; 2 a bad sweep file, point or argument, "
      "or a layout only the engine rejects (found when that point runs: the others still run and the files "
      "are written) "
      "(one line: file:line: vary.KEY[I]: problem); 3 the results cannot be written (checked before any "
      "point runs).");
  command->add_option("sweep", args.sweep_path, "Sweep file (YAML)");
  command->add_option("--preset", args.preset, "Run a shipped sweep (see --list)");
  command->add_flag("--list", args.list, "List the shipped sweeps and exit");
  command->add_flag("--show", args.show, "Print the YAML of the shipped sweep --preset and exit");
  command->add_flag("--dry-run", args.dry_run, "Check every point and list them, without running");
  command->add_flag("--json", args.json, "Print sweep.json instead of the table");
  command->add_option("--output", args.output, "Output folder (overrides the sweep's output)");
  command->add_flag("--no-files", args.no_files, "Do not write sweep.csv and sweep.json");
  command->callback([] { run(args); });
}

}  // namespace tpusim::cli
