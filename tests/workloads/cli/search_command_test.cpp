// tpusim search end to end: a search writes its folder, and its best.yaml runs under `tpusim run` with the
// step time the search printed; --json; a search that cannot work is one line and exit status 2 with nothing
// written; --no-files writes nothing.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "../report/image_checks.hpp"
#include "cli_files.hpp"
#include "cli_runner.hpp"
#include "tests/workloads/search/lm32_config.hpp"

using tpusim::cli_test::read_text;
using tpusim::cli_test::Scratch;

namespace {

const std::string kConfig =
    tpusim::workloads::test::lm32_yaml("  algorithms: [default, ring]\n  memory_cap: 9MiB\n");

// The first capture of `pattern` in `text`, "" when it does not match.
std::string captured(const std::string& text, const std::string& pattern) {
  std::smatch match;
  return std::regex_search(text, match, std::regex(pattern)) ? match[1].str() : "";
}

}  // namespace

TEST_CASE("cli: search writes its folder, and tpusim run runs its best.yaml with the step time it printed") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "lm-32.yaml") << kConfig;
  const auto run = scratch.run({"search", "lm-32.yaml", "--progress", "none"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK_THAT(run.out, Catch::Contains("space      526 candidates"));
  CHECK_THAT(run.out, Catch::Contains("exhaustive (seed 1), every candidate of the space evaluated"));
  const std::string best = captured(run.out, R"(best found\s+(\S+ \S+))");
  REQUIRE_FALSE(best.empty());
  const auto folder = scratch.work() / "results" / "lm-32-search";
  for (const char* file :
       {"candidates.csv", "pareto.csv", "best.yaml", "search.json", "pareto.gp", "pareto.dat"})
    CHECK(std::filesystem::exists(folder / file));
  if (tpusim::test::have_gnuplot()) {
    CHECK(tpusim::test::png_problem(folder / "pareto.png").empty());
    CHECK(tpusim::test::svg_problem(folder / "pareto.svg").empty());
  }
  // One row per candidate evaluated, and the times kept for the next search.
  std::istringstream csv(read_text(folder / "candidates.csv"));
  int rows = -1;
  for (std::string row; std::getline(csv, row);) ++rows;
  CHECK(rows == 526);
  CHECK(std::distance(std::filesystem::directory_iterator(scratch.work() / "results" / "collective-times"),
                      std::filesystem::directory_iterator{}) == 1);
  const auto document = nlohmann::json::parse(read_text(folder / "search.json"));
  CHECK(document.at("context").at("format") == "tpusim.search.v1");
  CHECK(document.at("evaluated") == 526);
  CHECK(document.at("spec").at("algorithms") == nlohmann::json{"default", "ring"});

  // The search's config runs too: tpusim run sets its search section aside.
  const auto own = scratch.run({"run", "lm-32.yaml", "--no-files"});
  INFO(own.describe());
  CHECK(own.exit_status == 0);
  CHECK(captured(own.out, R"(step time \(simulated\)\s+(\S+ \S+))") ==
        captured(run.out, R"(config's own\s+(\S+ \S+))"));

  const auto rerun = scratch.run({"run", "results/lm-32-search/best.yaml", "--no-files"});
  INFO(rerun.describe());
  REQUIRE(rerun.exit_status == 0);
  CHECK(captured(rerun.out, R"(step time \(simulated\)\s+(\S+ \S+))") == best);

  // Again: every collective time comes from the kept file, and the figures are the same.
  const auto again = scratch.run({"search", "lm-32.yaml", "--progress", "none", "--no-files"});
  CHECK(captured(again.out, R"(best found\s+(\S+ \S+))") == best);
  const auto warm = scratch.run({"search", "lm-32.yaml", "--progress", "none", "--output", "warm"});
  CHECK_THAT(warm.out, Catch::Contains("collectives 0 distinct ones simulated"));
  CHECK(read_text(scratch.work() / "warm" / "pareto.csv").size() > 0);
  // A cache folder that cannot be written is said on stderr; the search itself is done.
  std::ofstream(scratch.work() / "not-a-folder") << "a file\n";
  const auto unkept =
      scratch.run({"search", "lm-32.yaml", "--progress", "none", "--no-cache", "--output", "unkept"});
  CHECK(unkept.exit_status == 0);
  const auto blocked = scratch.run({"search", "lm-32.yaml", "--progress", "none", "--cache-dir",
                                    "not-a-folder/times", "--output", "blocked"});
  INFO(blocked.describe());
  CHECK(blocked.exit_status == 0);
  CHECK_THAT(blocked.err, Catch::StartsWith("tpusim: warning: the collective times were not kept: "));
  CHECK(std::filesystem::exists(scratch.work() / "blocked" / "best.yaml"));
}

TEST_CASE("cli: best.yaml is a config of its own: its name, the mesh it found, and its own results folder") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "lm-32.yaml") << kConfig;
  const auto run = scratch.run({"search", "lm-32.yaml", "--progress", "none"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  const auto folder = scratch.work() / "results" / "lm-32-search";
  const std::string best = read_text(folder / "best.yaml");
  // The fastest candidate that fits, as search.json holds it.
  const auto found = nlohmann::json::parse(read_text(folder / "search.json")).at("best");
  const std::string mesh = found.at("mesh_shape"), layout = found.at("layout"), mapping = found.at("mapping");
  CHECK_THAT(best, Catch::Contains("\nname: lm-32-best\n"));
  // Quoted by the YAML writer, since the layout holds ': '.
  CHECK_THAT(best, Catch::Contains("description: \"found by tpusim search on lm-32: mesh " + mesh +
                                   ", mapping " + mapping + ", layout " + layout + ";"));
  CHECK_THAT(best, Catch::Contains("output: results/lm-32-best"));
  // Run as a user would, with files: the preset's folder (results/lm-32) is not touched.
  const auto rerun = scratch.run({"run", "results/lm-32-search/best.yaml"});
  INFO(rerun.describe());
  REQUIRE(rerun.exit_status == 0);
  CHECK_THAT(rerun.out, Catch::Contains("lm-32-best"));
  CHECK(std::filesystem::exists(scratch.work() / "results" / "lm-32-best" / "summary.json"));
  CHECK_FALSE(std::filesystem::exists(scratch.work() / "results" / "lm-32"));
  const auto own = scratch.run({"run", "lm-32.yaml"});
  REQUIRE(own.exit_status == 0);
  CHECK(std::filesystem::exists(scratch.work() / "results" / "lm-32" / "summary.json"));
  CHECK(nlohmann::json::parse(read_text(scratch.work() / "results" / "lm-32-best" / "summary.json"))
            .at("config")
            .at("mesh")
            .at("shape") == mesh);
}

TEST_CASE("cli: search --json prints the document it writes, and --no-files writes nothing") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "lm-32.yaml") << kConfig;
  const auto run = scratch.run({"search", "lm-32.yaml", "--json", "--no-files", "--strategy", "mcmc",
                                "--max-candidates", "20", "--seed", "3", "--mesh-dims", "3"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  const auto document = nlohmann::json::parse(run.out);
  CHECK(document.at("context").at("inputs") == nlohmann::json{{"config", "lm-32.yaml"},
                                                              {"preset", nullptr},
                                                              {"max_candidates", 20},
                                                              {"time_limit_s", nullptr},
                                                              {"seed", 3},
                                                              {"strategy", "mcmc"},
                                                              {"mesh_dims", "3"},
                                                              {"layout_dims", nullptr},
                                                              {"algorithms", nullptr},
                                                              {"mappings", nullptr},
                                                              {"weight_sharding", nullptr},
                                                              {"pipeline_stages", nullptr},
                                                              {"microbatches", nullptr},
                                                              {"no_cache", false},
                                                              {"set", nullptr}});
  CHECK(document.at("strategy") == "mcmc");
  CHECK(document.at("spec").at("mesh_dims") == 3);
  CHECK(document.at("evaluated") == 20);
  CHECK(document.at("candidates").size() == 20);
  CHECK(run.err.empty());
  CHECK(scratch.entries() == std::vector<std::string>{"lm-32.yaml"});
}

TEST_CASE("cli: a search that cannot work is one line, exit status 2, and nothing written") {
  const Scratch scratch;
  const std::string& config = kConfig;
  const auto check = [&](const std::string& search_section, const std::string& expected) {
    std::string text = config.substr(0, config.find("search:")) + "search:\n" + search_section;
    std::ofstream(scratch.work() / "bad.yaml") << text;
    const auto run = scratch.run({"search", "bad.yaml", "--progress", "none"});
    INFO(run.describe());
    CHECK(run.exit_status == 2);
    REQUIRE(run.err_lines().size() == 1);
    CHECK_THAT(run.err_lines()[0], Catch::StartsWith(expected));
    CHECK(run.out.empty());
    CHECK(scratch.entries() == std::vector<std::string>{"bad.yaml"});
  };
  check("  pin_layout: batch:batch;d_model:batch\n",
        "tpusim: error: bad.yaml:19: search.pin_layout: none of the 84 candidates evaluated can be laid out");
  check("  mesh_dims: 0\n",
        "tpusim: error: bad.yaml:19: search.mesh_dims: 0 mesh dimensions; a search explores 1 to 3");
  check("  algorithm: [ring]\n", "tpusim: error: bad.yaml:19: search.algorithm: unknown key");
  // The training choices: a stage count the model's one layer cannot take, a mode that is none.
  check("  pipeline_stages: [1, 2]\n",
        "tpusim: error: bad.yaml:19: search.pipeline_stages[1]: 2 stages do not divide the 1 layers evenly");
  check("  weight_sharding: [none, zero3]\n",
        "tpusim: error: bad.yaml:19: search.weight_sharding[1]: 'zero3' is not valid");
  check("  microbatches: [4, 4]\n", "tpusim: error: bad.yaml:19: search.microbatches[1]: 4 is listed twice");
  const auto option = scratch.run({"search", "bad.yaml", "--strategy", "greedy"});
  CHECK(option.exit_status == 2);
  CHECK(option.err_lines().size() == 1);
  // The options for keys of the section are read as the section reads them.
  std::ofstream(scratch.work() / "bad.yaml") << config;
  const auto algorithms = scratch.run({"search", "bad.yaml", "--algorithms", "default,rng"});
  CHECK(algorithms.exit_status == 2);
  CHECK(
      algorithms.err_lines() ==
      std::vector<std::string>{"tpusim: error: --algorithms:1: search.algorithms[1]: 'rng' is not valid (did "
                               "you mean 'ring'?); valid values are default, " +
                               tpusim::cli_test::joined(tpusim::cli_test::listed_algorithms()) + ", auto"});
  const auto stages = scratch.run({"search", "bad.yaml", "--pipeline-stages", "1,3"});
  CHECK(stages.exit_status == 2);
  CHECK(stages.err_lines() ==
        std::vector<std::string>{"tpusim: error: --pipeline-stages:1: "
                                 "search.pipeline_stages[1]: 3 stages do not divide the 1 "
                                 "layers evenly"});
  const auto mlp = scratch.run({"search", "--preset", "tiny-mlp", "--pipeline-stages", "2", "--no-files"});
  CHECK(mlp.exit_status == 2);
  CHECK(mlp.err_lines() ==
        std::vector<std::string>{"tpusim: error: --pipeline-stages:1: "
                                 "search.pipeline_stages[0]: a mlp cannot be pipelined; the "
                                 "kinds that can are transformer_lm"});
  const auto sharding = scratch.run({"search", "bad.yaml", "--weight-sharding", "full,half"});
  CHECK(sharding.exit_status == 2);
  CHECK(sharding.err_lines().size() == 1);
  CHECK_THAT(sharding.err_lines().at(0),
             Catch::StartsWith("tpusim: error: --weight-sharding:1: search.weight_sharding[1]: 'half'"));
  const auto dims = scratch.run({"search", "bad.yaml", "--mesh-dims", "5"});
  CHECK(dims.err_lines() == std::vector<std::string>{
                                "tpusim: error: --mesh-dims:1: search.mesh_dims: 5 mesh dimensions; a search "
                                "explores 1 to 3"});
  CHECK(scratch.entries() == std::vector<std::string>{"bad.yaml"});
}

TEST_CASE("cli: a cap below every candidate is a search that ran and found none: exit 1, as --help says") {
  const Scratch scratch;
  std::string text = kConfig.substr(0, kConfig.find("search:")) + "search:\n  memory_cap: 1KiB\n";
  std::ofstream(scratch.work() / "tight.yaml") << text;
  const auto run = scratch.run({"search", "tight.yaml", "--progress", "none"});
  INFO(run.describe());
  CHECK(run.exit_status == 1);
  REQUIRE(run.err_lines().size() == 1);
  CHECK_THAT(
      run.err_lines()[0],
      Catch::StartsWith("tpusim: failure: no candidate of lm-32 fits: 1 KiB per core (tight.yaml:19: "
                        "search.memory_cap) is below the memory of every candidate evaluated; the least"));
  const auto folder = scratch.work() / "results" / "lm-32-search";
  CHECK(std::filesystem::exists(folder / "candidates.csv"));
  CHECK_FALSE(std::filesystem::exists(folder / "best.yaml"));
  const auto help = scratch.run({"search", "--help"});
  CHECK_THAT(help.out, Catch::Contains("1 no candidate fits"));
}

TEST_CASE("cli: a config without a mesh is searched from an open mesh, and tpusim run still asks for one") {
  const Scratch scratch;
  std::string text = kConfig;
  text.erase(text.find("mesh:\n"), std::string("mesh:\n  shape: batch:8;model:4\n").size());
  std::ofstream(scratch.work() / "open.yaml") << text;
  const auto search = scratch.run({"search", "open.yaml", "--progress", "none", "--no-files"});
  INFO(search.describe());
  CHECK(search.exit_status == 0);
  CHECK_THAT(search.out, Catch::Contains("config's own  none: the config leaves its mesh open"));
  const auto run = scratch.run({"run", "open.yaml", "--no-files"});
  CHECK(run.exit_status == 2);
  CHECK(run.err_lines() == std::vector<std::string>{"tpusim: error: open.yaml:1: missing key 'mesh'"});
}

TEST_CASE("cli: a search over weight sharding and pipelines writes them out, and best.yaml runs as found") {
  const Scratch scratch;
  std::string text = tpusim::workloads::test::lm32_yaml(
      "  layout_dims: [batch, d_ff]\n  weight_sharding: [none, full]\n  pipeline_stages: [1, 2]\n"
      "  microbatches: [4, 8]\n");
  text.replace(text.find("layers: 1"), 9, "layers: 2");
  std::ofstream(scratch.work() / "lm-32.yaml") << text;
  const auto run = scratch.run({"search", "lm-32.yaml", "--progress", "none"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK_THAT(run.out,
             Catch::Contains("; weight sharding none, full; pipelines (stages x microbatches) 1, 2x4, "
                             "2x8\n"));
  const auto folder = scratch.work() / "results" / "lm-32-search";
  const auto document = nlohmann::json::parse(read_text(folder / "search.json"));
  CHECK(document.at("spec").at("weight_sharding") == nlohmann::json{"none", "full"});
  CHECK(document.at("spec").at("pipeline_stages") == nlohmann::json{1, 2});
  CHECK(document.at("spec").at("microbatches") == nlohmann::json{4, 8});
  // Each candidate names its choices, in the document and in candidates.csv.
  std::set<std::string> seen;
  for (const auto& c : document.at("candidates")) {
    const int stages = c.at("pipeline_stages"), microbatches = c.at("microbatches");
    CHECK((stages == 1) == (microbatches == 1));
    CHECK((stages == 2) == (c.at("mesh_shape").get<std::string>().rfind("stage:2;", 0) == 0));
    seen.insert(fmt::format("{} {}x{}", c.at("weight_sharding").get<std::string>(), stages, microbatches));
  }
  CHECK(seen ==
        std::set<std::string>{"none 1x1", "full 1x1", "none 2x4", "full 2x4", "none 2x8", "full 2x8"});
  std::istringstream csv(read_text(folder / "candidates.csv"));
  std::string header;
  std::getline(csv, header);
  CHECK_THAT(header, Catch::StartsWith("index,mesh_shape,layout,mapping,algorithms,weight_sharding,"
                                       "pipeline_stages,microbatches,status,"));
  // best.yaml sets the training keys it was found with, and runs with the step time printed.
  const auto best = document.at("best");
  const std::string yaml = read_text(folder / "best.yaml");
  CHECK_THAT(yaml, Catch::Contains("weight_sharding: " + best.at("weight_sharding").get<std::string>()));
  CHECK_THAT(yaml,
             Catch::Contains(fmt::format("pipeline_stages: {}", best.at("pipeline_stages").get<int>())));
  const auto rerun = scratch.run({"run", "results/lm-32-search/best.yaml", "--no-files"});
  INFO(rerun.describe());
  REQUIRE(rerun.exit_status == 0);
  CHECK(captured(rerun.out, R"(step time \(simulated\)\s+(\S+ \S+))") ==
        captured(run.out, R"(best found\s+(\S+ \S+))"));
}

TEST_CASE("cli: --set search.KEY changes the search section as the config file would, after the file's own") {
  const Scratch scratch;
  std::ofstream(scratch.work() / "lm-32.yaml") << kConfig;
  const std::string section = kConfig.substr(0, kConfig.find("search:"));
  std::ofstream(scratch.work() / "written.yaml")
      << section << "search:\n  algorithms: [default, ring]\n  memory_cap: 7MiB\n  max_candidates: 40\n";
  const auto written = scratch.run({"search", "written.yaml", "--json", "--no-files"});
  const auto set = scratch.run({"search", "lm-32.yaml", "--json", "--no-files", "--set",
                                "search.memory_cap=7MiB", "--set", "search.max_candidates=40"});
  INFO(written.describe() << set.describe());
  REQUIRE(written.exit_status == 0);
  REQUIRE(set.exit_status == 0);
  // The same candidates in the same order, each with its figures; only this machine's wall times differ.
  const auto simulated = [](const std::string& out) {
    nlohmann::json document = nlohmann::json::parse(out);
    for (auto& candidate : document.at("candidates")) candidate.erase("wall_s");
    document.at("best").erase("wall_s");
    return document;
  };
  const auto a = simulated(written.out), b = simulated(set.out);
  CHECK(a.at("candidates") == b.at("candidates"));
  CHECK(a.at("best") == b.at("best"));
  CHECK(b.at("spec").at("memory_cap_bytes") == 7 * 1024 * 1024);
  CHECK(b.at("spec").at("max_candidates") == 40);

  // Problems are one line at the --set, exit status 2.
  for (const auto& [option, message] : std::vector<std::pair<std::string, std::string>>{
           {"search.memroy_cap=1GiB",
            "tpusim: error: --set search.memroy_cap:1: search.memroy_cap: unknown key"},
           {"search.memory_cap=", "tpusim: error: --set search.memory_cap: no value after '='"},
           {"search.memory_cap=lots", "tpusim: error: --set search.memory_cap:1: search.memory_cap: 'lots'"},
           {"search.max_candidates=0",
            "tpusim: error: --set search.max_candidates:1: search.max_candidates:"}}) {
    const auto bad = scratch.run({"search", "lm-32.yaml", "--no-files", "--set", option});
    INFO(bad.describe());
    CHECK(bad.exit_status == 2);
    REQUIRE(bad.err_lines().size() == 1);
    CHECK_THAT(bad.err_lines()[0], Catch::StartsWith(message));
  }
}
