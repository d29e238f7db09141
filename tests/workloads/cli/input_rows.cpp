#include "input_rows.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "cli_runner.hpp"

namespace tpusim::cli_test {

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
