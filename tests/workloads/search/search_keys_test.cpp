// The search section's keys are rows (workloads/search/search_spec.hpp): each default is written once, in its
// row, and the section the guide shows lists every row, in order, with the row's default where it has one.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "tests/workloads/search/lm32_config.hpp"
#include "workloads/config/config_parser.hpp"
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
    rows.push_back(key.name);
    if (key.default_yaml == nullptr) continue;
    INFO(key.name);
    // The same value, whatever its YAML spelling ([rings] or [ rings ]).
    CHECK(YAML::Dump(guide[key.name]) == YAML::Dump(YAML::Load(key.default_yaml)));
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
