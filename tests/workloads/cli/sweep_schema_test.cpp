// tpusim sweep --schema end to end: the text documents every key that --schema --json lists, in its order and
// with its default, and the JSON lists the rows that read sweep files (study_file.hpp) and collective points.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

TEST_CASE("cli: sweep --schema prints every key of both kinds of sweep file and of a collective point") {
  const Scratch scratch;
  const auto json_run = scratch.run({"sweep", "--schema", "--json"});
  INFO(json_run.describe());
  REQUIRE(json_run.exit_status == 0);
  CHECK(json_run.err.empty());
  const nlohmann::json schema = nlohmann::json::parse(json_run.out);
  CHECK(schema["context"]["format"] == "tpusim.sweep_schema.v1");
  const auto keys_of = [&](const char* list) {
    std::vector<std::string> keys;
    for (const auto& key : schema[list]) keys.push_back(key["key"]);
    return keys;
  };
  // The rows themselves are held to the JSON in tests/workloads/sweep/study_file_test.cpp; by hand here:
  CHECK(keys_of("training_keys").size() == 10);
  CHECK(keys_of("collective_study_keys").size() == 9);
  CHECK(schema["training_keys"][3]["key"] == "base");
  CHECK(schema["training_keys"][3]["required"] == true);
  CHECK(schema["collective_study_keys"][2]["key"] == "kind");
  CHECK(schema["collective_study_keys"][2]["required"] == true);

  const auto text_run = scratch.run({"sweep", "--schema"});
  INFO(text_run.describe());
  REQUIRE(text_run.exit_status == 0);
  CHECK(text_run.err.empty());
  const std::string text = "\n" + text_run.out;
  std::size_t at = 0;
  for (const char* list : {"training_keys", "collective_study_keys", "collective_point_keys"}) {
    for (const auto& key : schema[list]) {
      const std::string name = key["key"];
      INFO(list << " " << name);
      const auto found = text.find("\n" + name + " ", at);
      REQUIRE(found != std::string::npos);
      at = found + 1;
      const std::string expected =
          key["required"].get<bool>() ? "required" : "default: " + key["default"].get<std::string>();
      CHECK_THAT(text.substr(found, 400), Catch::Contains(expected));
    }
  }
  CHECK(scratch.entries().empty());
}

TEST_CASE("cli: sweep --schema with a sweep is a usage error") {
  const Scratch scratch;
  const auto run = scratch.run({"sweep", "--schema", "--preset", "lm-scaling"});
  INFO(run.describe());
  CHECK(run.exit_status == 2);
  CHECK(run.out.empty());
  CHECK(run.err ==
        "tpusim: error: sweep: --schema prints the keys of a sweep file; do not give a sweep or --preset\n");
}
