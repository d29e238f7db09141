// tpusim validate: every algorithm x size x topology row passes its checks, and the CSV is complete.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

namespace {

// RFC 4180 fields: the algorithms column quotes "ring,bidir_ring".
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE(
    "cli: validate passes every row and writes results/validate/validate.csv under the working directory") {
  const Scratch scratch;
  const auto run = scratch.run({"validate", "--progress", "none"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(run.err.empty());
  CHECK_THAT(run.out, Catch::Contains(" 0 failed; wrote results/validate/validate.csv and validate.json"));
  // A collective study's folder (a record per point, its summary) and the checks' files, written atomically:
  // no temporary file left beside them.
  std::size_t records = 0;
  for (const auto& entry : scratch.entries()) {
    INFO(entry);
    if (entry.rfind("results/validate/points/", 0) == 0 && entry != "results/validate/points/" &&
        entry != "results/validate/points/manifest.json") {
      CHECK(entry.size() > 5);
      CHECK(entry.substr(entry.size() - 5) == ".json");
      ++records;
      continue;
    }
    const std::vector<std::string> expected = {"results/",
                                               "results/validate/",
                                               "results/validate/points/",
                                               "results/validate/points/manifest.json",
                                               "results/validate/sweep.csv",
                                               "results/validate/sweep.json",
                                               "results/validate/validate.csv",
                                               "results/validate/validate.json"};
    CHECK(std::find(expected.begin(), expected.end(), entry) != expected.end());
  }
  CHECK_THAT(run.out, Catch::Contains(fmt::format("\n{} points done now, 0 from the records", records)));
  const auto first_csv = lines_of(scratch.work() / "results/validate/validate.csv");
  // A second run simulates nothing: every point has its record, and the rows come out the same.
  const auto again = scratch.run({"validate", "--progress", "none"});
  REQUIRE(again.exit_status == 0);
  CHECK_THAT(again.out,
             Catch::Contains(fmt::format("\n0 points done now, {} from the records of an earlier", records)));
  CHECK(lines_of(scratch.work() / "results/validate/validate.csv") == first_csv);
  CHECK(scratch.entries().size() == records + 8);

  const auto lines = lines_of(scratch.work() / "results/validate/validate.csv");
  REQUIRE(lines.size() > 101);
  const auto header = csv_fields(lines.front());
  REQUIRE(header.size() >= 4);
  CHECK(header.front() == "topology");
  CHECK(header.back() == "status");
  const auto column = [&header](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    REQUIRE(at != header.end());
    return static_cast<std::size_t>(at - header.begin());
  };
  const std::size_t simulated = column("simulated_s"), bound = column("lower_bound_s"),
                    closed_form = column("closed_form_s");
  std::size_t without_closed_form = 0;
  std::map<std::string, std::size_t> exact_rows_by_topology;
  std::size_t exact_rows = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    INFO("validate.csv line " << i + 1 << ": " << lines[i]);
    const auto fields = csv_fields(lines[i]);
    REQUIRE(fields.size() == header.size());
    CHECK(fields.back() == "pass");
    CHECK(std::stod(fields[simulated]) > 0);
    CHECK(std::stod(fields[simulated]) >= std::stod(fields[bound]) * (1 - 1e-9));
    // A closed form that does not exist is an empty cell, never a number standing for none.
    if (fields[closed_form].empty())
      ++without_closed_form;
    else
      CHECK(std::stod(fields[closed_form]) > 0);
    exact_rows_by_topology[fields.front()];
    if (fields[column("checks")].find("exact") != std::string::npos) {
      ++exact_rows;
      ++exact_rows_by_topology[fields.front()];
    }
  }
  // Contention-free rows (rings along rings, one-hop exchanges) are checked for exact alpha-beta equality: on
  // every topology, and on a large share of all rows (multi-hop schedules such as recursive doubling's and
  // all-to-alls share links, so not on most).
  for (const auto& [topology, exact] : exact_rows_by_topology) {
    INFO(topology);
    CHECK(exact > 0);
  }
  CHECK(exact_rows > (lines.size() - 1) / 3);

  std::ifstream json_file(scratch.work() / "results/validate/validate.json");
  const auto document = nlohmann::json::parse(json_file);
  CHECK(document.at("runs").size() == lines.size() - 1);
  CHECK(without_closed_form > 0);
  CHECK(std::count_if(document.at("runs").begin(), document.at("runs").end(), [](const nlohmann::json& run) {
          return run.at("closed_form_s").is_null();
        }) == static_cast<std::ptrdiff_t>(without_closed_form));
  CHECK(document.at("totals").at("failures") == 0);
  CHECK(document.at("totals").at("rows") == lines.size() - 1);
  CHECK(document.at("context").at("format") == "tpusim.validate.v1");
  CHECK(document.at("context").at("command") == "validate");
}
