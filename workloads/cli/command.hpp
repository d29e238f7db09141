#pragma once
// Every subcommand lives in its own file and registers itself here. A subcommand's callback throws
// InputError for bad input; main() prints it as one line and exits with status 2.
#include <CLI/CLI.hpp>

#include "workloads/report/sweep_plots.hpp"

namespace tpusim::cli {

void add_topo_command(CLI::App& app);        // topo_command.cpp
void add_collective_command(CLI::App& app);  // collective_command.cpp
void add_validate_command(CLI::App& app);    // validate_command.cpp
void add_run_command(CLI::App& app);         // run_command.cpp
void add_sweep_command(CLI::App& app);       // sweep_command.cpp
void add_search_command(CLI::App& app);      // search_command.cpp
void add_plot_command(CLI::App& app);        // plot_command.cpp
void add_fidelity_command(CLI::App& app);    // fidelity_command.cpp
void add_calibrate_command(CLI::App& app);   // fidelity_command.cpp
void add_bench_command(CLI::App& app);       // bench_command.cpp: the parent of those below

// Ends the --help of tpusim and of every subcommand with its examples (command_examples.cpp); called once
// every command is registered.
void add_examples(CLI::App& app);

void add_bench_collectives(CLI::App& bench);  // bench_collectives.cpp
void add_bench_engine(CLI::App& bench);       // bench_engine.cpp
void add_bench_conv(CLI::App& bench);         // bench_conv.cpp
void add_bench_step(CLI::App& bench);         // bench_step.cpp
void add_bench_sweep(CLI::App& bench);        // bench_sweep.cpp
void add_bench_search(CLI::App& bench);       // bench_search.cpp

// tpusim plot's --plot-time-limit, which tpusim sweep takes too, and the options it gives draw_sweep_outputs
// (plot_command.cpp). 0 seconds: the option was not given, and TPUSIM_GNUPLOT_TIME_LIMIT_S is read (an
// InputError when it is not a time).
CLI::Option* add_plot_time_limit_option(CLI::App* command, int& seconds);
workloads::SweepPlotOptions sweep_plot_options(int plot_time_limit_s);

}  // namespace tpusim::cli
