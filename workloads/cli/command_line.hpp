#pragma once
// The whole tpusim command line as a function: parses argv (argv[0] is the program's name), runs the
// subcommand, prints its output on stdout and any error as one line on stderr, and returns the exit status
// (exit_status.hpp). It never throws. Subcommands keep their parsed options in statics: call it once per
// process (the Python front end calls it in a fresh child each time).
namespace tpusim::cli {

int run_command_line(int argc, char** argv);

}  // namespace tpusim::cli
