#pragma once
// Running gnuplot (Debian package gnuplot-nox) as a child process: tpusim writes a script and its data, and
// gnuplot draws the PNG and SVG files. gnuplot is found on PATH when needed, so tpusim builds and simulates
// without it; only plotting needs it.
#include <string>

namespace tpusim::workloads {

// The one line that says plots need gnuplot and how to get it.
extern const char* const kGnuplotMissing;

// Whether an executable `gnuplot` is on PATH.
bool gnuplot_available();

// Throws EnvironmentError(kGnuplotMissing) unless gnuplot_available(): checked before anything is written.
void require_gnuplot();

// Runs `gnuplot <script>` with `folder` as its working directory, so that the script names its data and
// output files relative to it and can be rerun by hand from there. A gnuplot that cannot be started throws
// EnvironmentError; one that fails throws std::runtime_error naming the script and gnuplot's first message.
void run_gnuplot(const std::string& folder, const std::string& script);

}  // namespace tpusim::workloads
