// tpusim sweep end to end: a bad sweep is one line and exit status 2 with nothing written; a tiny sweep
// prints a row per point and writes sweep.csv and sweep.json.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("cli: sweep: an invalid point is one line naming the sweep file, exit status 2, no files") {
  const Scratch scratch;
  write(scratch.work() / "bad.yaml",
        "base: tiny-mlp\n"
        "vary:\n"
        "  mesh.shape:\n"
        "    - batch:4;model:2\n"
        "    - batch:4;model:4\n");
  const auto run = scratch.run({"sweep", "bad.yaml"});
  INFO(run.describe());
  CHECK(run.exit_status == 2);
  CHECK(run.out.empty());
  REQUIRE(run.err_lines().size() == 1);
  CHECK(run.err_lines()[0] ==
        "tpusim: error: bad.yaml:5: vary.mesh.shape[1]: batch:4;model:4 has 16 cores but the topology ring-8 "
        "has 8");
  CHECK(scratch.entries() == std::vector<std::string>{"bad.yaml"});
}

TEST_CASE("cli: sweep: a tiny sweep prints a row per point and writes the CSV and JSON") {
  const Scratch scratch;
  write(scratch.work() / "tiny.yaml",
        "name: tiny\n"
        "base: tiny-mlp\n"
        "vary:\n"
        "  mesh.shape: [batch:4;model:2, batch:8;model:1]\n"
        "  training.numerics: [timing]\n");
  const auto run = scratch.run({"sweep", "tiny.yaml"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(run.err.empty());
  CHECK_THAT(run.out, Catch::Contains("tpusim sweep tiny: 2 points, base tiny-mlp"));
  CHECK_THAT(run.out, Catch::Contains("results in results/tiny/ (sweep.csv, sweep.json)"));
  const auto csv = lines_of(scratch.work() / "results/tiny/sweep.csv");
  REQUIRE(csv.size() == 3);
  CHECK(csv[0].rfind("point,mesh.shape,training.numerics,topology,cores,", 0) == 0);
  CHECK(csv[1].rfind("0,batch:4;model:2,timing,ring-8,8,", 0) == 0);
  CHECK(csv[2].rfind("1,batch:8;model:1,timing,ring-8,8,", 0) == 0);
  std::ifstream json_file(scratch.work() / "results/tiny/sweep.json");
  const auto json = nlohmann::json::parse(json_file);
  CHECK(json["context"]["name"] == "tiny");
  REQUIRE(json["runs"].size() == 2);
  CHECK(json["runs"][0]["step_time"]["step_time_s"].get<double>() > 0);
  CHECK(json["runs"][1]["memory_per_core"]["fits"] == true);
  CHECK(scratch.entries() == std::vector<std::string>{"results/", "results/tiny/", "results/tiny/sweep.csv",
                                                      "results/tiny/sweep.json", "tiny.yaml"});
}

TEST_CASE("cli: sweep: the shipped sweeps are listed and check without running") {
  const Scratch scratch;
  const auto list = scratch.run({"sweep", "--list"});
  INFO(list.describe());
  CHECK(list.exit_status == 0);
  CHECK_THAT(list.out, Catch::Contains("lm-s5-mesh"));
  const auto dry = scratch.run({"sweep", "--preset", "lm-s5-mesh", "--dry-run"});
  INFO(dry.describe());
  CHECK(dry.exit_status == 0);
  CHECK_THAT(dry.out, Catch::Contains("sweep lm-s5-mesh: 5 points"));
  CHECK_THAT(dry.out, Catch::Contains("mesh.shape=batch:4;model:128"));
  const auto unknown = scratch.run({"sweep", "--preset", "lm-s5-mehs"});
  CHECK(unknown.exit_status == 2);
  CHECK_THAT(unknown.err, Catch::Contains("unknown sweep preset 'lm-s5-mehs' (did you mean 'lm-s5-mesh'?)"));
  CHECK(scratch.entries().empty());
}
