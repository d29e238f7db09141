// The configs of workloads/examples/configs/ run as their comments say, each with a result a reader can
// check by hand from the file: the pod's cores from its topology, the points from the lengths of the vary
// lists, simulated collectives no faster than their lower bound, a search no worse than the config's own
// layout. Every YAML file of the folder must have its row.
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

namespace {

const std::filesystem::path kFolder = TPUSIM_EXAMPLE_CONFIGS;

struct Example {
  std::string file;
  std::vector<std::string> args;  // after the command and the file
  std::string command;
  std::function<void(const nlohmann::json&)> check;
};

const std::vector<Example>& examples() {
  static const std::vector<Example> rows = {
      {"run.yaml",
       {"--no-files", "--json"},
       "run",
       [](const nlohmann::json& out) {
         // tpu-v2-32: 4x4 chips x 2 cores; a step of 64 sequences of 128 tokens.
         CHECK(out.at("config").at("mesh").at("shape") == "batch:8;model:4");
         CHECK(out.at("memory_per_core").at("fits") == true);
         const double step_s = out.at("step_time").at("step_time_s");
         CHECK(step_s > 0);
         CHECK(out.at("throughput").at("tokens_per_s").get<double>() == Approx(64 * 128 / step_s));
       }},
      {"torus-sweep.yaml",
       {"--no-files", "--json", "--progress", "none"},
       "sweep",
       [](const nlohmann::json& out) {
         // torus:2x2, 4x4 and 8x8 with 2 cores per chip, every core on the batch axis.
         const auto& runs = out.at("runs");
         REQUIRE(runs.size() == 3);
         const std::vector<int> cores = {2 * 2 * 2, 4 * 4 * 2, 8 * 8 * 2};
         for (std::size_t i = 0; i < runs.size(); ++i) {
           CHECK(runs[i].at("config").at("cores") == cores[i]);
           CHECK(runs[i].at("config").at("mesh_shape") == "batch:" + std::to_string(cores[i]) + ";model:1");
           CHECK(runs[i].at("memory_per_core").at("fits") == true);
         }
       }},
      {"collective-sweep.yaml",
       {"--no-files", "--json", "--progress", "none"},
       "sweep",
       [](const nlohmann::json& out) {
         // 1 op x 2 algorithms x 3 sizes x 2 topologies.
         const auto& runs = out.at("runs");
         CHECK(runs.size() == 1 * 2 * 3 * 2);
         for (const auto& run : runs) {
           CHECK(run.at("status") == "ok");
           CHECK(run.at("ratio_to_lower_bound").get<double>() >= 1.0);
           CHECK(run.at("cores") == (run.at("topology") == "torus:4x4" ? 16 : 64));
         }
       }},
      {"search.yaml",
       {"--no-files", "--json"},
       "search",
       [](const nlohmann::json& out) {
         CHECK(out.at("cores") == 32);
         CHECK(out.at("strategy") == "exhaustive");
         CHECK(out.at("evaluated") == out.at("space_size"));
         CHECK(out.at("fits").get<int>() > 0);
         // The config's own mesh and layout are in the space, so the best is at least as fast.
         CHECK(out.at("best").at("step_time_s").get<double>() <=
               out.at("base").at("step_time_s").get<double>() * (1 + 1e-12));
       }},
  };
  return rows;
}

}  // namespace

TEST_CASE("cli: every example config of workloads/examples/configs runs and gives a plausible result") {
  const Scratch scratch;
  for (const auto& example : examples()) {
    SECTION(example.file) {
      std::vector<std::string> args = {example.command, (kFolder / example.file).string()};
      args.insert(args.end(), example.args.begin(), example.args.end());
      const auto run = scratch.run(args);
      INFO(example.file << "\n" << run.describe());
      REQUIRE(run.exit_status == 0);
      CHECK(run.err.empty());
      example.check(nlohmann::json::parse(run.out));
    }
  }
  CHECK(scratch.entries().empty());
}

TEST_CASE("cli: every YAML file of workloads/examples/configs has its row in the examples test") {
  std::set<std::string> files, rows;
  for (const auto& entry : std::filesystem::directory_iterator(kFolder)) {
    if (entry.path().extension() == ".yaml") files.insert(entry.path().filename().string());
  }
  for (const auto& example : examples()) rows.insert(example.file);
  CHECK(files == rows);
}
