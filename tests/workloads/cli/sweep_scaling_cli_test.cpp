// A sweep over pod sizes carries the resolved values (cores, mesh, global batch, tokens/s, FLOP/s per core)
// and the speedup and efficiency against the smallest point, in sweep.csv, sweep.json, on the terminal and
// in report.md; the figures are checked against the step times of sweep.csv, worked out here.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_files.hpp"
#include "cli_runner.hpp"

using namespace tpusim::cli_test;

namespace {

const std::string kScalingBase =
    "name: small\n"
    "hardware: {topology: torus:2x2}\n"
    "mesh: {shape: \"batch:4\"}\n"
    "model: {kind: transformer_lm, layers: 1, d_model: 64, d_ff: 256, heads: 4, d_kv: 16, vocab: 256, batch: "
    "32,"
    " length: 16}\n"
    "training: {numerics: timing}\n";

// sweep.csv as rows of named cells (no cell of these sweeps holds a comma or a quote).
std::vector<std::map<std::string, std::string>> read_csv(const std::filesystem::path& path) {
  const auto lines = lines_of(path);
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::istringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    return cells;
  };
  const auto header = split(lines.at(0));
  std::vector<std::map<std::string, std::string>> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto cells = split(lines[i]);
    REQUIRE(cells.size() == header.size());
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < header.size(); ++c) row[header[c]] = cells[c];
    rows.push_back(row);
  }
  return rows;
}

double number(const std::map<std::string, std::string>& row, const std::string& column) {
  return std::stod(row.at(column));
}

}  // namespace

TEST_CASE("cli: sweep: strong scaling, a fixed global batch, reports the step time ratio as speedup") {
  const Scratch scratch;
  write_file(scratch.work() / "small.yaml", kScalingBase);
  write_file(scratch.work() / "strong.yaml",
             "name: strong\nbase: small.yaml\nvary:\n  mesh.shape: [\"batch:*\"]\n"
             "  hardware.topology: [torus:2x2, torus:4x4, torus:4x8]\n");
  const auto run = scratch.run({"sweep", "strong.yaml", "--progress", "none", "-j", "1"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  const auto rows = read_csv(scratch.work() / "results" / "strong" / "sweep.csv");
  REQUIRE(rows.size() == 3);
  const auto& smallest = rows[0];
  for (const auto& row : rows) {
    INFO(row.at("point"));
    // Resolved, never batch:*: the mesh has the topology's cores on its batch axis.
    CHECK(row.at("mesh_shape") == "batch:" + row.at("cores"));
    CHECK(row.at("global_batch") == "32");
    const double step_s = number(row, "step_time_s");
    CHECK(number(row, "tokens_per_s") == Approx(32.0 * 16 / step_s));
    CHECK(number(row, "examples_per_s") == Approx(32.0 / step_s));
    CHECK(number(row, "flops_per_s_per_core") ==
          Approx(number(row, "model_flops_per_step") / step_s / number(row, "cores")));
    CHECK(row.at("scaling") == "strong");
    const double speedup = number(smallest, "step_time_s") / step_s;
    CHECK(number(row, "speedup") == Approx(speedup));
    CHECK(number(row, "efficiency") == Approx(speedup / (number(row, "cores") / number(smallest, "cores"))));
  }
  // The same in sweep.json, on the terminal and in report.md.
  std::ifstream json_file(scratch.work() / "results" / "strong" / "sweep.json");
  const auto json = nlohmann::json::parse(json_file);
  const auto& last = json.at("runs").at(2);
  CHECK(last.at("config").at("global_batch") == 32);
  CHECK(last.at("scaling").at("reference_point") == 0);
  CHECK(last.at("scaling").at("speedup").get<double>() ==
        Approx(number(smallest, "step_time_s") / number(rows[2], "step_time_s")));
  // The terminal's second table: the resolved mesh and batch, and the speedup, as worked out here.
  CHECK_THAT(run.out, Catch::Contains("speedup and efficiency against the smallest point of its series"));
  const double last_speedup = number(smallest, "step_time_s") / number(rows[2], "step_time_s");
  char expected[64];
  std::snprintf(expected, sizeof expected, "strong        #0  %7.2fx", last_speedup);
  const auto at = run.out.find("\n   2     32  batch:32 ");
  REQUIRE(at != std::string::npos);
  CHECK_THAT(run.out.substr(at, run.out.find('\n', at + 1) - at), Catch::Contains(expected));
  std::ifstream report_file(scratch.work() / "results" / "strong" / "report.md");
  std::ostringstream report;
  report << report_file.rdbuf();
  CHECK_THAT(report.str(), Catch::Contains("| global batch |"));
  CHECK_THAT(report.str(), Catch::Contains("| scaling | speedup | efficiency |"));

  // Shards hold part of each series; merged, the figures are those of the whole sweep.
  for (const char* shard : {"1/2", "2/2"})
    REQUIRE(scratch.run({"sweep", "strong.yaml", "--progress", "none", "--shard", shard}).exit_status == 0);
  const auto merged =
      scratch.run({"sweep", "merge", "merged", "results/strong-shard-1-of-2", "results/strong-shard-2-of-2"});
  INFO(merged.describe());
  REQUIRE(merged.exit_status == 0);
  CHECK(csv_without_wall(scratch.work() / "merged" / "sweep.csv") ==
        csv_without_wall(scratch.work() / "results" / "strong" / "sweep.csv"));
}

TEST_CASE("cli: sweep: weak scaling, the batch growing with the cores, reports throughput per core") {
  const Scratch scratch;
  write_file(scratch.work() / "small.yaml", kScalingBase);
  write_file(scratch.work() / "weak.yaml",
             "name: weak\nbase: small.yaml\nset:\n  model.batch: {per: batch, value: 8}\nvary:\n"
             "  mesh.shape: [\"batch:*\"]\n  hardware.topology: [torus:2x2, torus:4x4, torus:4x8]\n");
  const auto run = scratch.run({"sweep", "weak.yaml", "--progress", "none", "-j", "1"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  const auto rows = read_csv(scratch.work() / "results" / "weak" / "sweep.csv");
  REQUIRE(rows.size() == 3);
  const auto& smallest = rows[0];
  const double smallest_per_core = 8.0 * 16 / number(smallest, "step_time_s");  // tokens/s per core
  for (const auto& row : rows) {
    INFO(row.at("point"));
    CHECK(number(row, "global_batch") == 8 * number(row, "cores"));
    CHECK(row.at("scaling") == "weak");
    const double per_core =
        number(row, "global_batch") * 16 / number(row, "step_time_s") / number(row, "cores");
    CHECK(number(row, "efficiency") == Approx(per_core / smallest_per_core));
    CHECK(number(row, "speedup") == Approx(per_core / smallest_per_core * number(row, "cores") / 4));
  }
}
