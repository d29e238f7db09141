#pragma once
// Running gnuplot (Debian package gnuplot-nox) as a child process: tpusim writes a script and its data, and
// gnuplot draws the PNG and SVG files. gnuplot is found on PATH when needed, so tpusim builds and simulates
// without it; only plotting needs it.
//
// gnuplot has a time limit (TPUSIM_GNUPLOT_TIME_LIMIT_S, a minute by default; `tpusim plot` and `tpusim
// sweep` take --plot-time-limit): a gnuplot still running then is killed with what it started, and the
// drawing fails saying so. What it draws is checked whole (a PNG to its IEND chunk, an SVG to its closing
// tag), since gnuplot exits 0 after writing half an image to a full disk.
#include <stdexcept>
#include <string>
#include <vector>

namespace tpusim::workloads {

// The one line that says plots need gnuplot and how to get it.
extern const char* const kGnuplotMissing;

// gnuplot ran and did not draw: it failed, was killed, passed its time limit, or drew an image cut short in
// a folder that can still be written. The results it was to draw stand; only the drawing is lost.
class GnuplotFailure : public std::runtime_error {
 public:
  explicit GnuplotFailure(const std::string& message) : std::runtime_error(message) {}
};

inline constexpr const char* kGnuplotTimeLimitVariable = "TPUSIM_GNUPLOT_TIME_LIMIT_S";
inline constexpr double kDefaultGnuplotTimeLimitS = 60;

// gnuplot's time limit: TPUSIM_GNUPLOT_TIME_LIMIT_S, or kDefaultGnuplotTimeLimitS (InputError naming the
// variable when it is not a number of seconds).
double gnuplot_time_limit_s();

// Whether an executable `gnuplot` is on PATH.
bool gnuplot_available();

// Throws EnvironmentError(kGnuplotMissing) unless gnuplot_available(): checked before anything is written.
void require_gnuplot();

struct GnuplotRun {
  std::string folder;               // its working folder: the script names its data and images relative to it
  std::string script;               // the script's file name in `folder`
  std::vector<std::string> images;  // the files the script draws in `folder`, checked whole afterwards
  std::string shown_folder;         // what messages call `folder` (a staging folder's final name); "": folder
  double time_limit_s = 0;          // 0: gnuplot_time_limit_s()
  std::string how_to_raise;  // the end of the time-out message; "": "set TPUSIM_GNUPLOT_TIME_LIMIT_S..."
};

// Runs `gnuplot <script>` in `folder`, so that the script can be rerun by hand from there. A gnuplot that is
// missing or cannot be started throws EnvironmentError. When it fails or an image comes out missing or cut
// short, `folder` is tried with a write of its own: a folder that cannot take it (disk full, quota,
// read-only, permission) is an EnvironmentError naming shown_folder and why; else a GnuplotFailure naming
// the script and quoting gnuplot. A gnuplot past its time limit is a GnuplotFailure saying so.
void run_gnuplot(const GnuplotRun& run);

// "" when `path` is a whole image (a PNG from its signature to its IEND chunk, an SVG ending in </svg>, any
// other file not empty), else what is wrong with it ("is missing", "is cut short: no IEND chunk at its end").
std::string image_problem(const std::string& path);

}  // namespace tpusim::workloads
