#pragma once
// What tpusim's exit statuses mean: one table for the command line (main's footer and its error handling) and
// the Python front end, which raises an exception carrying the same meaning.
#include <array>
#include <string_view>

namespace tpusim::cli {

struct ExitStatus {
  int code;
  std::string_view name;     // an identifier, as the Python front end spells it
  std::string_view meaning;  // as --help and the exceptions say it
};

inline constexpr ExitStatus kExitOk{0, "ok", "done"};
inline constexpr ExitStatus kExitFailed{1, "failed", "ran but failed, or the model does not fit its HBM"};
inline constexpr ExitStatus kExitBadInput{2, "bad_input", "bad input (a config, sweep or argument)"};
inline constexpr ExitStatus kExitEnvironment{
    3, "environment", "the environment failed (results folder not writable, disk full, permission denied)"};

inline constexpr std::array<ExitStatus, 4> kExitStatuses{kExitOk, kExitFailed, kExitBadInput,
                                                         kExitEnvironment};

}  // namespace tpusim::cli
