// The tpusim command line: every subcommand registered, the arguments parsed and run, and every error turned
// into one line on stderr and an exit status (exit_status.hpp). The tpusim program is this function; the
// Python front end calls it in a child process.
#include "workloads/cli/command_line.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/exit_status.hpp"

namespace {

// The deepest subcommand parsed so far ("tpusim bench step"), whose --help the error message points to.
CLI::App* deepest_command(CLI::App& app, std::string& path) {
  CLI::App* deepest = &app;
  path = "tpusim";
  while (!deepest->get_subcommands().empty()) {
    deepest = deepest->get_subcommands().front();
    path += " " + deepest->get_name();
  }
  return deepest;
}

// CLI11 reports a mistyped or missing subcommand only as "A subcommand is required"; name the word typed and
// the valid subcommands of the command that needed one.
std::string parse_error_message(CLI::App& app, const CLI::ParseError& error) {
  std::string path;
  CLI::App* deepest = deepest_command(app, path);
  std::string message = error.what();
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr &&
      deepest->get_require_subcommand_min() > 0) {
    std::vector<std::string> names;
    for (const CLI::App* sub : deepest->get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(sub->get_name());
    }
    const auto extra = deepest->remaining();
    message = extra.empty()
                  ? fmt::format("'{}' needs a subcommand: {}", path, tpusim::join(names))
                  : fmt::format("unknown subcommand '{}' of '{}'{}; valid subcommands are {}", extra.front(),
                                path, tpusim::did_you_mean(extra.front(), names), tpusim::join(names));
  }
  return fmt::format("{} (see '{} --help')", message, path);
}

// An option given '' would mean "not given" to most commands: `--shard "$UNSET"` in a Slurm array would run
// the whole sweep in every task. Every option that takes a value refuses an empty one.
void refuse_empty_values(CLI::App& command) {
  const CLI::Validator not_empty(
      [](std::string& value) {
        return value.empty() ? std::string("an empty value: give one, or leave the option out") : "";
      },
      "", "not empty");
  for (CLI::Option* option : command.get_options()) {
    if (option->get_type_size_max() > 0) option->check(not_empty);
  }
  for (CLI::App* sub : command.get_subcommands([](CLI::App*) { return true; })) refuse_empty_values(*sub);
}

}  // namespace

namespace tpusim::cli {

int run_command_line(int argc, char** argv) {
  CLI::App app{"tpusim: a simulator and emulator of TPU-style accelerator pods", "tpusim"};
  app.require_subcommand(1);
  std::string statuses;
  for (const auto& status : kExitStatuses)
    statuses += fmt::format("{}{} {}", statuses.empty() ? "" : "; ", status.code, status.meaning);
  app.footer(
      "Exit status: " + statuses +
      " (a command's help above says what each means for it). An error is one line, naming file:line: key "
      "for "
      "a config.\n"
      "Every child process has a time limit, past which it is killed and named in one line: a simulation "
      "run in a child process TPUSIM_CHILD_TIME_LIMIT_S seconds (default 86400), gnuplot "
      "TPUSIM_GNUPLOT_TIME_LIMIT_S (default 60; tpusim plot and sweep take --plot-time-limit).");
  app.set_version_flag("--version", "tpusim " TPUSIM_VERSION);
  tpusim::cli::add_topo_command(app);
  tpusim::cli::add_collective_command(app);
  tpusim::cli::add_validate_command(app);
  tpusim::cli::add_bench_command(app);
  tpusim::cli::add_run_command(app);
  tpusim::cli::add_sweep_command(app);
  tpusim::cli::add_search_command(app);
  tpusim::cli::add_plot_command(app);
  tpusim::cli::add_fidelity_command(app);
  tpusim::cli::add_calibrate_command(app);
  tpusim::cli::add_examples(app);
  refuse_empty_values(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version);
  } catch (const CLI::ParseError& error) {
    // One line, like every other error (scripts grep for it): the usage hint goes on the same line.
    std::fprintf(stderr, "tpusim: error: %s\n", tpusim::one_line(parse_error_message(app, error)).c_str());
    return kExitBadInput.code;
  } catch (const tpusim::InputError& error) {
    std::fprintf(stderr, "tpusim: error: %s\n", tpusim::one_line(error.what()).c_str());
    return kExitBadInput.code;
  } catch (const tpusim::EnvironmentError& error) {
    std::fprintf(stderr, "tpusim: error: %s\n", tpusim::one_line(error.what()).c_str());
    return kExitEnvironment.code;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "tpusim: failure: out of memory\n");
    return kExitFailed.code;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "tpusim: failure: %s\n", tpusim::one_line(error.what()).c_str());
    return kExitFailed.code;
  }
  return kExitOk.code;
}

}  // namespace tpusim::cli
