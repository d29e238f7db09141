// tpusim: simulate and emulate TPU-style pods. Exit status: 0 success; 1 ran but failed, or the model does
// not fit its HBM; 2 bad input (config, arguments); 3 the environment failed (results folder not writable,
// disk full, permission denied). Each error is one line on stderr.
#include "workloads/cli/command_line.hpp"

int main(int argc, char** argv) { return tpusim::cli::run_command_line(argc, argv); }
