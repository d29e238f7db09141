// --help of tpusim and of every subcommand it lists (found by walking the help texts, so a new subcommand is
// covered without editing this file): exit status 0, the usage on stdout, nothing on stderr, no file.
#include <catch2/catch.hpp>
#include <set>
#include <sstream>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

namespace {

// The names under "Subcommands:" in CLI11's help: lines indented by exactly two spaces (wrapped descriptions
// are indented further).
std::vector<std::string> subcommands_in(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream in(help);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Subcommands:") {
      inside = true;
    } else if (inside && line.empty()) {
      inside = false;
    } else if (inside && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return names;
}

}  // namespace

TEST_CASE("cli: --help of tpusim and of every subcommand exits 0 with the usage on stdout") {
  // `run` belongs to the workloads being written now; its end-to-end tests live in tests/workloads.
  const std::set<std::string> not_here = {"run"};
  const Scratch scratch;
  std::vector<std::vector<std::string>> pending = {{}};
  std::set<std::string> visited;
  while (!pending.empty()) {
    const auto path = pending.back();
    pending.pop_back();
    std::string command = "tpusim";
    for (const auto& word : path) command += " " + word;
    visited.insert(command);
    auto args = path;
    args.push_back("--help");
    const auto run = scratch.run(args);
    INFO(command << " --help\n" << run.describe());
    CHECK(run.exit_status == 0);
    CHECK(run.err.empty());
    CHECK_THAT(run.out, Catch::Contains("Usage: " + command));
    CHECK_THAT(run.out, Catch::Contains("-h,--help"));
    for (const auto& name : subcommands_in(run.out)) {
      if (path.empty() && not_here.count(name) > 0) continue;
      auto child = path;
      child.push_back(name);
      pending.push_back(child);
    }
  }
  CHECK(scratch.entries().empty());
  // The walk found the subcommands this suite knows about (a parsing slip would silently skip them).
  for (const char* expected :
       {"tpusim topo", "tpusim topo list", "tpusim topo describe", "tpusim collective", "tpusim validate", "tpusim bench",
        "tpusim bench collectives", "tpusim bench engine", "tpusim bench conv", "tpusim bench step",
        "tpusim search", "tpusim bench search"}) {
    CHECK(visited.count(expected) == 1);
  }
}

TEST_CASE("cli: --version prints the version and exits 0") {
  const Scratch scratch;
  const auto run = scratch.run({"--version"});
  INFO(run.describe());
  CHECK(run.exit_status == 0);
  CHECK(run.err.empty());
  CHECK_THAT(run.out, Catch::StartsWith("tpusim "));
}
