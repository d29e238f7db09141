#include "input_rows.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "cli_runner.hpp"

namespace tpusim::cli_test {

const std::string kConfig =
    "name: hostile\n"             // 1
    "hardware:\n"                 // 2
    "  topology: ring-8\n"        // 3
    "mesh:\n"                     // 4
    "  shape: batch:4;model:2\n"  // 5
    "model:\n"                    // 6
    "  kind: mlp\n"               // 7
    "  layers: 2\n"               // 8
    "  d_model: 16\n"             // 9
    "  d_ff: 64\n"                // 10
    "  batch: 32\n"               // 11
    "training:\n"                 // 12
    "  numerics: timing\n";       // 13

std::string replaced(const std::string& from, const std::string& to) {
  std::string text = kConfig;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string with_hardware(const std::string& line) {
  return replaced("  topology: ring-8\n", "  topology: ring-8\n  " + line + "\n");
}

void check_row(const Row& row) {
  const Scratch scratch;
  for (const auto& [name, text] : row.files) {
    const auto path = scratch.work() / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  if (row.setup) row.setup(scratch.work());
  const auto before = scratch.entries();
  const auto run =
      row.privileges == Privileges::unprivileged ? scratch.run_unprivileged(row.args) : scratch.run(row.args);
  std::string command;
  for (const auto& word : row.args) command += " " + word;
  INFO(row.what << ": tpusim" << command << "\n" << run.describe());
  CHECK(run.exit_status == row.status);
  if (row.status == 0) {
    CHECK(run.err.empty());
    for (const auto& phrase : row.phrases) CHECK_THAT(run.out, Catch::Contains(phrase));
    return;
  }
  CHECK(run.out.empty());
  const auto lines = run.err_lines();
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines.front(), Catch::StartsWith("tpusim: error: "));
  for (const auto& phrase : row.phrases) CHECK_THAT(lines.front(), Catch::Contains(phrase));
  CHECK(scratch.entries() == before);
}

}  // namespace tpusim::cli_test
