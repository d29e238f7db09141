// The search section's keys are rows (workloads/search/search_keys.cpp): each default is written once, in its
// row, and the section the guide shows lists every row, in order, with the row's default where it has one;
// tpusim search --schema lists the rows.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/workloads/search/lm32_config.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/search/search_schema.hpp"
#include "workloads/search/search_spec.hpp"

namespace {

// The first ```yaml block of workloads/README.md that starts with "search:" (tests run in the source folder).
YAML::Node guide_search_section() {
  std::ifstream in("workloads/README.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const auto start = all.find("```yaml\nsearch:\n");
  REQUIRE(start != std::string::npos);
  const auto body = start + std::string("```yaml\n").size();
  return YAML::Load(all.substr(body, all.find("```", body) - body))["search"];
}

}  // namespace

TEST_CASE("search keys: the guide's search section lists every row, in order, with the rows' defaults") {
  const YAML::Node guide = guide_search_section();
  REQUIRE(guide.IsMap());
  std::vector<std::string> documented;
  for (const auto& entry : guide) documented.push_back(entry.first.as<std::string>());
  std::vector<std::string> rows;
  for (const auto& key : tpusim::workloads::search_keys()) {
    rows.push_back(key.name());
    if (key.absent != tpusim::workloads::KeyAbsent::default_value) continue;
    INFO(key.key);
    // The same value, whatever its YAML spelling ([rings] or [ rings ]).
    CHECK(YAML::Dump(guide[key.name()]) == YAML::Dump(YAML::Load(key.default_value)));
  }
  CHECK(documented == rows);
}

TEST_CASE("search keys: a section that writes nothing is the rows' defaults, and the base's where computed") {
  const auto base = tpusim::workloads::parse_run_config(tpusim::workloads::test::lm32_yaml(), "lm-32.yaml");
  const auto spec = tpusim::workloads::read_search_spec(std::nullopt, base);
  // Written out by hand: the defaults the guide states.
  CHECK(spec.mesh_dims == 2);
  CHECK(spec.mappings == std::vector<std::string>{"rings"});
  CHECK(spec.algorithms == std::vector<std::string>{"default"});
  CHECK(spec.strategy == tpusim::workloads::SearchStrategy::automatic);
  CHECK(spec.max_candidates == 5000);
  CHECK(spec.time_limit_s == 0);
  CHECK(spec.seed == 1);
  CHECK(spec.memory_cap_bytes == base.hardware.device.hbm_bytes());
  // The transformer LM's paper layout: batch:batch;vocab:model;d_ff:model;heads:model.
  CHECK(spec.layout_dims == std::vector<std::string>{"batch", "vocab", "d_ff", "heads"});
  CHECK(spec.mesh_shapes.empty());
  CHECK(spec.pinned_layout.empty());
  CHECK(spec.weight_sharding.empty());
  CHECK(spec.pipeline_stages.empty());
  CHECK(spec.microbatches.empty());
  CHECK(spec.locations.empty());
}

TEST_CASE("search keys: every row is a key of the search section with a type, documentation and a default") {
  using tpusim::workloads::KeyAbsent;
  for (const auto& key : tpusim::workloads::search_keys()) {
    INFO(key.key);
    CHECK(key.section() == "search");
    CHECK_FALSE(key.type.empty());
    CHECK_FALSE(key.doc.empty());
    CHECK(key.read);
    // A search section needs none of its keys.
    CHECK(key.absent != KeyAbsent::unset);
    CHECK(key.absent != KeyAbsent::required);
    CHECK((key.absent == KeyAbsent::computed) == static_cast<bool>(key.fallback));
    CHECK_FALSE(key.default_text().empty());
  }
}

TEST_CASE("search schema: the text and the JSON list every row, in order, with its type and default") {
  const auto& rows = tpusim::workloads::search_keys();
  std::ostringstream text;
  tpusim::workloads::print_search_schema(text);
  const nlohmann::json schema = tpusim::workloads::search_schema_json();
  CHECK(schema["context"]["format"] == "tpusim.search_schema.v1");
  CHECK(schema["context"]["command"] == "search");
  REQUIRE(schema["keys"].size() == rows.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const auto& key = schema["keys"][i];
    INFO(row.key);
    CHECK(key["key"] == row.key);
    CHECK(key["type"] == row.type);
    CHECK(key["default"] == row.default_text());
    CHECK(key["required"] == false);
    CHECK(key["doc"] == row.doc);
    // Each entry after the one before, its key at the start of a line.
    const auto found = text.str().find("\n" + row.key + " ", at);
    REQUIRE(found != std::string::npos);
    at = found + 1;
    const std::string entry = text.str().substr(found, text.str().find("\nsearch.", found + 1) - found);
    CHECK_THAT(entry, Catch::Contains("default: " + row.default_text()));
  }
}

TEST_CASE("search schema: the defaults it states, written out by hand") {
  const nlohmann::json schema = tpusim::workloads::search_schema_json();
  std::map<std::string, std::string> defaults;
  for (const auto& key : schema["keys"]) defaults[key["key"]] = key["default"];
  CHECK(defaults["search.mesh_dims"] == "2");
  CHECK(defaults["search.mappings"] == "[rings]");
  CHECK(defaults["search.algorithms"] == "[default]");
  CHECK(defaults["search.memory_cap"] == "the device's HBM");
  CHECK(defaults["search.strategy"] == "auto");
  CHECK(defaults["search.max_candidates"] == "5000");
  CHECK(defaults["search.seed"] == "1");
}
