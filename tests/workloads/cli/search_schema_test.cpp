// tpusim search --schema end to end: the text documents every key that --schema --json lists, in its order,
// with its default; the rows themselves are held to the listing in
// tests/workloads/search/search_keys_test.cpp.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

TEST_CASE("cli: search --schema prints every key of the search section with its type and default") {
  const Scratch scratch;
  const auto json_run = scratch.run({"search", "--schema", "--json"});
  INFO(json_run.describe());
  REQUIRE(json_run.exit_status == 0);
  CHECK(json_run.err.empty());
  const nlohmann::json schema = nlohmann::json::parse(json_run.out);
  CHECK(schema["context"]["format"] == "tpusim.search_schema.v1");
  REQUIRE(schema["keys"].size() >= 10);

  const auto text_run = scratch.run({"search", "--schema"});
  INFO(text_run.describe());
  REQUIRE(text_run.exit_status == 0);
  CHECK(text_run.err.empty());
  const std::string text = "\n" + text_run.out;
  std::size_t at = 0;
  for (const auto& key : schema["keys"]) {
    const std::string name = key["key"];
    INFO(name);
    const auto found = text.find("\n" + name + " ", at);
    REQUIRE(found != std::string::npos);
    at = found + 1;
    CHECK_THAT(text, Catch::Contains("default: " + key["default"].get<std::string>()));
  }
  CHECK_THAT(text, Catch::Contains("\nsearch.mesh_dims                 whole number\n"));
  CHECK(scratch.entries().empty());
}

TEST_CASE("cli: search --schema with a config is a usage error") {
  const Scratch scratch;
  const auto run = scratch.run({"search", "--schema", "--preset", "lm-s5"});
  INFO(run.describe());
  CHECK(run.exit_status == 2);
  CHECK(run.out.empty());
  CHECK(
      run.err ==
      "tpusim: error: search: --schema prints the search section's keys; do not give a config or --preset\n");
}
