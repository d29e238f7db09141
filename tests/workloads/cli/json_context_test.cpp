// Every JSON document tpusim prints or writes opens with the same context block (report/report_context.hpp):
// tpusim_version, simgrid_version, format, command, inputs, in that order, and nothing else in it.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_files.hpp"
#include "cli_runner.hpp"

using tpusim::cli_test::read_text;
using tpusim::cli_test::Scratch;

namespace {

const std::vector<std::string> kContextFields = {"tpusim_version", "simgrid_version", "format", "command",
                                                 "inputs"};

// Checks the block's shape and order in the text itself (ordered_json keeps the order it reads) and returns
// the block.
nlohmann::json context_of(const std::string& text) {
  const auto document = nlohmann::ordered_json::parse(text);
  REQUIRE(document.is_object());
  REQUIRE(!document.empty());
  CHECK(document.begin().key() == "context");
  const auto& context = document.at("context");
  std::vector<std::string> fields;
  for (const auto& [key, value] : context.items()) fields.push_back(key);
  CHECK(fields == kContextFields);
  CHECK(context.at("tpusim_version") == TPUSIM_VERSION);
  CHECK(context.at("simgrid_version").get<std::string>().rfind("3.", 0) == 0);
  CHECK(context.at("inputs").is_object());
  return nlohmann::json::parse(context.dump());
}

struct Case {
  std::vector<std::string> args;
  const char* format;
  const char* command;
  nlohmann::json inputs;
};

}  // namespace

TEST_CASE("cli: every --json output opens with the same context block") {
  const std::vector<Case> cases = {
      {{"topo", "describe", "ring-8", "--json"},
       "tpusim.topology.v1",
       "topo describe",
       {{"topology", "ring-8"}}},
      {{"topo", "list", "--json"}, "tpusim.topology_list.v1", "topo list", {}},
      {{"collective", "--topology", "ring-8", "--bytes", "4KiB", "--json"},
       "tpusim.collective.v2",
       "collective",
       {{"topology", "ring-8"},
        {"op", "allreduce"},
        {"algo", nullptr},
        {"bytes", "4KiB"},
        {"group_axes", nullptr},
        {"reduce", "sum"},
        {"network", "ideal"},
        {"check_data", false},
        {"no_fold", false},
        {"faults", nullptr}}},
      {{"collective", "--list-algorithms", "--json"},
       "tpusim.algorithms.v1",
       "collective",
       {{"list_algorithms", true}}},
      {{"run", "--schema", "--json"}, "tpusim.config_schema.v1", "run", {{"schema", true}}},
      {{"search", "--schema", "--json"}, "tpusim.search_schema.v1", "search", {{"schema", true}}},
      {{"run", "--preset", "tiny-mlp", "--no-files", "--steps", "2", "--json"},
       "tpusim.run_summary.v1",
       "run",
       {{"config", nullptr}, {"preset", "tiny-mlp"}, {"steps", 2}, {"faults", nullptr}, {"set", nullptr}}},
      {{"bench", "step", "--only", "v2", "--json"}, "tpusim.bench_step.v1", "bench step", {{"only", "v2"}}},
      {{"bench",         "engine",      "--json",  "--batch",  "32",         "--io",         "32",
        "--hidden",      "32",          "--steps", "1",        "--topology", "ring-8",       "--mesh",
        "rows:2;cols:4", "--pod-batch", "32",      "--pod-io", "32",         "--pod-hidden", "32"},
       "tpusim.bench_engine.v1",
       "bench engine",
       {{"batch", 32},
        {"io", 32},
        {"hidden", 32},
        {"cores", 1},
        {"steps", 1},
        {"topology", "ring-8"},
        {"mesh", "rows:2;cols:4"},
        {"layout", "batch:rows;hidden:cols"},
        {"pod_batch", 32},
        {"pod_io", 32},
        {"pod_hidden", 32}}},
      {{"bench", "collectives", "--json"}, "tpusim.bench_collectives.v1", "bench collectives", {}},
      {{"bench", "conv", "--layer", "--batch", "2", "--size", "8", "--in-channels", "3", "--out-channels",
        "4", "--steps", "1", "--json"},
       "tpusim.bench_conv.v1",
       "bench conv",
       {{"steps", 1}, {"layer", "2x8x8x3 -> 4, 3x3 stride 1"}}},
      {{"search", "--preset", "tiny-mlp", "--no-files", "--json", "--max-candidates", "5"},
       "tpusim.search.v1",
       "search",
       {{"config", nullptr},
        {"preset", "tiny-mlp"},
        {"max_candidates", 5},
        {"time_limit_s", nullptr},
        {"seed", nullptr},
        {"strategy", nullptr},
        {"mesh_dims", nullptr},
        {"layout_dims", nullptr},
        {"algorithms", nullptr},
        {"mappings", nullptr},
        {"weight_sharding", nullptr},
        {"pipeline_stages", nullptr},
        {"microbatches", nullptr},
        {"no_cache", false},
        {"set", nullptr}}},
  };
  const Scratch scratch;
  for (const auto& c : cases) {
    const auto run = scratch.run(c.args);
    std::string command;
    for (const auto& word : c.args) command += " " + word;
    INFO("tpusim" << command << "\n" << run.describe());
    REQUIRE(run.exit_status == 0);
    const auto context = context_of(run.out);
    CHECK(context.at("format") == c.format);
    CHECK(context.at("command") == c.command);
    CHECK(context.at("inputs") == (c.inputs.is_null() ? nlohmann::json::object() : c.inputs));
  }
  CHECK(scratch.entries().empty());
}

TEST_CASE("cli: the files in a result folder carry the context block of the command that wrote them") {
  const Scratch scratch;
  const auto run = scratch.run({"run", "--preset", "tiny-mlp", "--json", "--output", "out"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  const auto printed = context_of(run.out);
  const auto written = context_of(read_text(scratch.work() / "out" / "summary.json"));
  CHECK(written == printed);
  CHECK(written.at("inputs") == nlohmann::json{{"config", nullptr},
                                               {"preset", "tiny-mlp"},
                                               {"steps", nullptr},
                                               {"faults", nullptr},
                                               {"set", nullptr}});

  std::ofstream(scratch.work() / "tiny.yaml") << "name: tiny\n"
                                                 "base: tiny-mlp\n"
                                                 "vary:\n"
                                                 "  mesh.shape: [batch:4;model:2, batch:8;model:1]\n"
                                                 "  training.numerics: [timing]\n";
  const auto sweep = scratch.run({"sweep", "tiny.yaml", "--json"});
  INFO(sweep.describe());
  REQUIRE(sweep.exit_status == 0);
  const auto sweep_printed = context_of(sweep.out);
  const auto sweep_written = context_of(read_text(scratch.work() / "results" / "tiny" / "sweep.json"));
  CHECK(sweep_written == sweep_printed);
  CHECK(sweep_written.at("format") == "tpusim.sweep.v1");
  CHECK(sweep_written.at("command") == "sweep");
  CHECK(sweep_written.at("inputs") == nlohmann::json{{"sweep", "tiny.yaml"}, {"preset", nullptr}});
  // The sweep itself sits beside the context, as the resolved config does in summary.json.
  const auto document = nlohmann::json::parse(sweep.out);
  CHECK(document.at("sweep").at("name") == "tiny");
  CHECK(document.at("sweep").at("vary").at(0).at("key") == "mesh.shape");
}

TEST_CASE("cli: run --explain prints why the step takes its time, and summary.json holds the same parts") {
  const Scratch scratch;
  const auto run = scratch.run({"run", "--preset", "tiny-lm", "--explain", "--output", "out"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  for (const char* part : {"why the step takes", "by bound", "matrix unit", "by op kind", "longest ops"})
    CHECK(run.out.find(part) != std::string::npos);
  const auto summary = nlohmann::json::parse(read_text(scratch.work() / "out" / "summary.json"));
  double sum = 0;
  for (const auto& share : summary.at("explain").at("by_bound")) sum += share.at("time_s").get<double>();
  CHECK(sum == Approx(summary.at("step_time").at("step_time_s").get<double>()).epsilon(1e-12));
  // The trace names each compute slice's bound.
  CHECK(read_text(scratch.work() / "out" / "trace.json").find("\"args\":{\"bound\":\"") != std::string::npos);
}
