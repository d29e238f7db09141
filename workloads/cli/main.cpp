// tpusim: simulate and emulate TPU-style pods. Exit status: 0 success, 1 runtime failure, 2 bad input.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "topologies/support/input_error.hpp"
#include "workloads/cli/command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tpusim: a simulator and emulator of TPU-style accelerator pods", "tpusim"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tpusim 0.1.0");
  tpusim::cli::add_topo_command(app);
  tpusim::cli::add_collective_command(app);
  tpusim::cli::add_validate_command(app);
  tpusim::cli::add_bench_command(app);
  tpusim::cli::add_run_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version);
  } catch (const CLI::ParseError& error) {
    std::fprintf(stderr, "tpusim: error: %s\nRun 'tpusim --help' for usage.\n", error.what());
    return 2;
  } catch (const tpusim::InputError& error) {
    std::fprintf(stderr, "tpusim: error: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "tpusim: failure: %s\n", error.what());
    return 1;
  }
  return 0;
}
