// --help of tpusim and of every subcommand it lists (found by walking the help texts, so a new subcommand is
// covered without editing this file): exit status 0, the usage on stdout, nothing on stderr, no file, and
// examples of the command itself, the quick ones of which run.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
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

// The command lines under "Examples:", each as its words (they need no shell quoting).
std::vector<std::vector<std::string>> examples_in(const std::string& help) {
  std::vector<std::vector<std::string>> examples;
  std::istringstream in(help);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Examples:") {
      inside = true;
    } else if (inside && line.rfind("  tpusim ", 0) == 0) {
      std::istringstream words(line);
      examples.emplace_back();
      for (std::string word; words >> word;) examples.back().push_back(word);
    } else {
      inside = false;
    }
  }
  return examples;
}

// Walks tpusim's commands: `visit` gets each one's words after "tpusim" and its --help run.
template <class Visit>
std::set<std::string> walk_help(const Scratch& scratch, const std::set<std::string>& not_here, Visit visit) {
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
    visit(path, command, run);
    for (const auto& name : subcommands_in(run.out)) {
      if (path.empty() && not_here.count(name) > 0) continue;
      auto child = path;
      child.push_back(name);
      pending.push_back(child);
    }
  }
  return visited;
}

}  // namespace

TEST_CASE("cli: --help of tpusim and of every subcommand exits 0 with the usage on stdout") {
  // `run` belongs to the workloads being written now; its end-to-end tests live in tests/workloads.
  const std::set<std::string> not_here = {"run"};
  const Scratch scratch;
  const auto visited = walk_help(scratch, not_here, [](auto&, const std::string& command, const auto& run) {
    CHECK(run.exit_status == 0);
    CHECK(run.err.empty());
    CHECK_THAT(run.out, Catch::Contains("Usage: " + command));
    CHECK_THAT(run.out, Catch::Contains("-h,--help"));
  });
  CHECK(scratch.entries().empty());
  // The walk found the subcommands this suite knows about (a parsing slip would silently skip them).
  for (const char* expected :
       {"tpusim topo", "tpusim topo list", "tpusim topo describe", "tpusim collective", "tpusim validate",
        "tpusim bench", "tpusim bench collectives", "tpusim bench engine", "tpusim bench conv",
        "tpusim bench step", "tpusim search", "tpusim bench search"}) {
    CHECK(visited.count(expected) == 1);
  }
}

TEST_CASE("cli: --help of every command ends with examples of that command, and the quick ones run") {
  const Scratch scratch;
  // The examples name files from the repository's top folder.
  std::filesystem::create_directory_symlink(
      std::filesystem::path(TPUSIM_EXAMPLE_CONFIGS).parent_path().parent_path(),
      scratch.work() / "workloads");
  std::vector<std::vector<std::string>> quick;
  const auto visited = walk_help(scratch, {}, [&](const auto& path, const std::string&, const auto& run) {
    const auto examples = examples_in(run.out);
    CHECK_FALSE(examples.empty());
    // At least one runs the command itself (others may make the input it reads: a sweep before its plot).
    bool of_itself = false;
    for (const auto& words : examples) {
      of_itself = of_itself ||
                  (words.size() > path.size() && std::equal(path.begin(), path.end(), words.begin() + 1));
      const bool is_quick = (words.size() > 1 && words[1] == "topo") ||
                            std::find(words.begin(), words.end(), "--dry-run") != words.end() ||
                            std::find(words.begin(), words.end(), "--schema") != words.end();
      if (is_quick) quick.push_back(std::vector<std::string>(words.begin() + 1, words.end()));
    }
    CHECK(of_itself);
  });
  CHECK(visited.count("tpusim run") == 1);
  REQUIRE(quick.size() >= 3);
  for (const auto& args : quick) {
    const auto run = scratch.run(args);
    std::string line = "tpusim";
    for (const auto& word : args) line += " " + word;
    INFO(line << "\n" << run.describe());
    CHECK(run.exit_status == 0);
    CHECK(run.err.empty());
    CHECK_FALSE(run.out.empty());
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
