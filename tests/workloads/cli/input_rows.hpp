#pragma once
// A table of command lines for the bad-input tests: each row runs the built binary in a scratch folder on the
// files it writes there, and checks the exit status and the phrases of its output. A failing row must print
// exactly one line on stderr ("tpusim: error: ..."), leave stdout empty and the folder as the row's setup
// made it: nothing half-written.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tpusim::cli_test {

// A valid timing-only config of a few milliseconds of simulation; rows add one line under `hardware:` (line 4
// of the file, with_hardware) or replace one (replaced).
extern const std::string kConfig;
std::string replaced(const std::string& from, const std::string& to);
std::string with_hardware(const std::string& line);

enum class Privileges { user, unprivileged };

struct Row {
  std::string what;
  std::vector<std::string> args;
  std::map<std::string, std::string> files;  // written into the working directory first
  int status;
  std::vector<std::string> phrases;  // of the one stderr line; of stdout when status is 0
  std::function<void(const std::filesystem::path& work)> setup = {};
  Privileges privileges = Privileges::user;
};

// Runs the row and checks it (Catch2 assertions).
void check_row(const Row& row);

}  // namespace tpusim::cli_test
