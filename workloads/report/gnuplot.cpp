#include "workloads/report/gnuplot.hpp"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/child_time_limit.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/external_program.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::workloads {
namespace fs = std::filesystem;

const char* const kGnuplotMissing =
    "gnuplot is not installed, so no plots were drawn (apt-get install gnuplot-nox, or .ci/install-deps)";

namespace {

// Larger than any image gnuplot draws here, so that a disk with room for this had room for the image.
constexpr std::size_t kProbeBytes = 4 << 20;

// gnuplot's own message for a failed script ends with the line naming the script, line and problem; earlier
// lines echo the command with a caret under the fault, and warnings can say more ("No data in plot" follows
// the warning naming the missing file).
std::string gnuplot_message(const std::string& output) {
  std::string last, warning;
  for (const auto& line : split(output, '\n')) {
    const auto start = line.find_first_not_of(" \t\r^");
    if (start == std::string::npos) continue;
    last = line.substr(start);
    const auto at = last.find("warning: ");
    if (at != std::string::npos) warning = last.substr(at);
  }
  return warning.empty() || last.find(warning) != std::string::npos ? last : last + " (" + warning + ")";
}

std::string tail_of(const std::string& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  if (size <= 0) return "";
  const std::streamoff from = size > std::streamoff(bytes) ? size - std::streamoff(bytes) : 0;
  in.seekg(from);
  std::string text(static_cast<std::size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return in ? text : "";
}

std::string head_of(const std::string& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string text(bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(bytes));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

}  // namespace

double gnuplot_time_limit_s() {
  return time_limit_from_environment(kGnuplotTimeLimitVariable, kDefaultGnuplotTimeLimitS);
}

bool gnuplot_available() { return !find_on_path("gnuplot").empty(); }

void require_gnuplot() {
  if (!gnuplot_available()) throw EnvironmentError(kGnuplotMissing);
}

std::string image_problem(const std::string& path) {
  std::error_code error;
  const auto size = fs::file_size(path, error);
  if (error) return "is missing";
  if (size == 0) return "is empty";
  const std::string extension = fs::path(path).extension().string();
  if (extension == ".png") {
    // The signature, and the IEND chunk: length 0, type, and the CRC of "IEND".
    if (head_of(path, 8) != std::string("\x89PNG\r\n\x1a\n", 8)) return "is not a PNG (no PNG signature)";
    if (tail_of(path, 12) != std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12))
      return "is cut short: no IEND chunk at its end";
  } else if (extension == ".svg") {
    std::string tail = tail_of(path, 64);
    tail.erase(tail.find_last_not_of(" \t\r\n") + 1);
    if (tail.size() < 6 || tail.compare(tail.size() - 6, 6, "</svg>") != 0)
      return "is cut short: it does not end in </svg>";
  }
  return "";
}

void run_gnuplot(const GnuplotRun& run) {
  const std::string program = find_on_path("gnuplot");
  if (program.empty()) throw EnvironmentError(kGnuplotMissing);
  const double limit_s = run.time_limit_s > 0 ? run.time_limit_s : gnuplot_time_limit_s();
  const std::string shown = run.shown_folder.empty() ? run.folder : run.shown_folder;
  const ProgramEnding ending = run_external_program({program, {run.script}, run.folder, limit_s});
  if (ending.timed_out) {
    const std::string what = run.images.empty()
                                 ? fmt::format("gnuplot, running '{}/{}',", shown, run.script)
                                 : fmt::format("gnuplot, drawing '{}/{}',", shown, run.images.front());
    const std::string hint = run.how_to_raise.empty()
                                 ? fmt::format("set {} to allow more", kGnuplotTimeLimitVariable)
                                 : run.how_to_raise;
    throw GnuplotFailure(time_limit_message(what, limit_s, hint));
  }
  std::string failure;
  if (ending.signal != 0) {
    failure = fmt::format("gnuplot {}/{} was killed by signal {} ({})", shown, run.script, ending.signal,
                          ::strsignal(ending.signal));
  } else if (ending.exit_status != 0) {
    const std::string message = gnuplot_message(ending.output);
    failure = fmt::format("gnuplot failed on {}/{} (exit status {}){}{}", shown, run.script,
                          ending.exit_status, message.empty() ? "" : ": ", message);
  } else {
    for (const auto& image : run.images) {
      const std::string problem = image_problem((fs::path(run.folder) / image).string());
      if (!problem.empty()) {
        failure = fmt::format("gnuplot ran {}/{}, but {} {}", shown, run.script, image, problem);
        break;
      }
    }
  }
  if (failure.empty()) return;
  // gnuplot says nothing, or nothing clear, when its files do not fit: the folder itself tells.
  const std::string unwritable = write_problem(run.folder, kProbeBytes);
  if (!unwritable.empty())
    throw EnvironmentError(fmt::format("cannot write the plots in '{}': {}", shown, unwritable));
  throw GnuplotFailure(failure);
}

}  // namespace tpusim::workloads
