// A run's result folder end to end: it appears as one unit, replacing an earlier run's folder wholesale, and
// what killed runs left behind (a staging folder, a half-written file) is cleaned by the next run, which says
// so.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "cli_files.hpp"
#include "cli_runner.hpp"

using tpusim::cli_test::ended_pid;
using tpusim::cli_test::read_text;
using tpusim::cli_test::Scratch;

namespace {

const std::string kFolderConfig =
    "name: folder\n"
    "hardware: {topology: ring-8}\n"
    "mesh: {shape: batch:4;model:2}\n"
    "model: {kind: mlp, layers: 2, d_model: 16, d_ff: 64, batch: 32}\n";

}  // namespace

TEST_CASE("cli: run: the results replace an earlier run's folder wholesale and killed runs' leftovers go") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "c.yaml") << kFolderConfig;
  const auto out = scratch.work() / "results" / "folder";
  std::filesystem::create_directories(out);
  std::ofstream(out / "summary.json") << "an earlier run\n";
  std::ofstream(out / "trace.json") << "an earlier run\n";
  const std::string killed = ended_pid();
  std::ofstream(out / ("collectives.csv.tmp." + killed)) << "half written";
  std::filesystem::create_directories(scratch.work() / "results" / ("folder.tmp." + killed));

  const auto run = scratch.run({"run", "c.yaml"});
  INFO(run.describe());
  CHECK(run.exit_status == 0);
  // The staging folder was a leftover; the half-written file went with the earlier result it was part of.
  CHECK(run.err ==
        "tpusim: note: removed 1 leftover of a killed run in 'results' (0 B): folder.tmp." + killed + "\n");
  CHECK(scratch.entries() ==
        std::vector<std::string>{"c.yaml", "results/", "results/folder/", "results/folder/collectives.csv",
                                 "results/folder/summary.json", "results/folder/trace.json"});
  CHECK(read_text(out / "summary.json").find("\"name\": \"folder\"") != std::string::npos);
}

TEST_CASE("cli: run --no-files and bad input leave nothing, not even a results folder") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "c.yaml") << kFolderConfig;
  CHECK(scratch.run({"run", "c.yaml", "--no-files"}).exit_status == 0);
  // The layout is found illegal only by the engine, after the results folder was staged.
  std::ofstream(scratch.work() / "bad.yaml")
      << "name: bad\n"
         "hardware: {topology: ring-8}\n"
         "mesh: {shape: batch:4;model:2, layout: batch:batch;d_ff:batch}\n"
         "model: {kind: mlp, layers: 2, d_model: 16, d_ff: 64, batch: 32}\n";
  const auto run = scratch.run({"run", "bad.yaml"});
  INFO(run.describe());
  CHECK(run.exit_status == 2);
  CHECK(scratch.entries() == std::vector<std::string>{"bad.yaml", "c.yaml"});
}
