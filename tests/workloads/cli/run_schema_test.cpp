// tpusim run --schema end to end: the text documents every key that --schema --json lists, with its default.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

TEST_CASE("cli: run --schema prints every key of the config with its type and default") {
  const Scratch scratch;
  const auto json_run = scratch.run({"run", "--schema", "--json"});
  INFO(json_run.describe());
  REQUIRE(json_run.exit_status == 0);
  CHECK(json_run.err.empty());
  const nlohmann::json schema = nlohmann::json::parse(json_run.out);
  CHECK(schema["context"]["format"] == "tpusim.config_schema.v1");
  REQUIRE(schema["keys"].size() >= 20);

  const auto text_run = scratch.run({"run", "--schema"});
  INFO(text_run.describe());
  REQUIRE(text_run.exit_status == 0);
  CHECK(text_run.err.empty());
  const std::string text = "\n" + text_run.out;
  for (const auto& key : schema["keys"]) {
    const std::string name = key["key"];
    INFO(name);
    CHECK_THAT(text, Catch::Contains("\n" + name + " "));
    CHECK_THAT(text, Catch::Contains(key["required"].get<bool>() ? std::string("required")
                                                                  : "default: " + key["default"].get<std::string>()));
  }
  for (const auto& key : schema["model_keys"]) CHECK_THAT(text, Catch::Contains("\n" + key["key"].get<std::string>() + " "));
  for (const auto& kind : schema["model_kinds"]) CHECK_THAT(text, Catch::Contains("\n  " + kind["name"].get<std::string>() + " "));
  CHECK_THAT(text, Catch::Contains("\nhardware.topology                topology preset or spec\n"));
  CHECK(scratch.entries().empty());
}

TEST_CASE("cli: run --schema with a config is a usage error") {
  const Scratch scratch;
  const auto run = scratch.run({"run", "--schema", "--preset", "lm-s5"});
  INFO(run.describe());
  CHECK(run.exit_status == 2);
  CHECK(run.out.empty());
  CHECK(run.err == "tpusim: error: run: --schema prints the config schema; do not give a config or --preset\n");
}
