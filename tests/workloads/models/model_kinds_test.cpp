// The model-kind registry: every row consistent with the model keys, every kind builds its example preset
// with the parameters of its closed form, and nothing outside the registry chooses by kind.
#include "workloads/models/model_kinds.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mesh_tf/graph.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/models/model_builder.hpp"
#include "workloads/models/model_section.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

TEST_CASE("model kinds: every row names model keys that exist, and dimensions sized by its own keys") {
  for (const auto& kind : model_kinds()) {
    INFO(kind.name);
    CHECK(&model_kind(kind.kind) == &kind);
    CHECK(model_kind_names().parse(kind.name) == kind.kind);
    CHECK(std::string(to_string(kind.kind)) == kind.name);
    CHECK_FALSE(kind.description.empty());
    CHECK(kind.build != nullptr);
    CHECK(kind.summary != nullptr);
    std::vector<std::string> keys;
    for (const auto& use : kind.keys) {
      keys.push_back(use.key);
      ModelConfig model;
      // A default reads as a written value would.
      if (!use.default_value.empty()) {
        CHECK_NOTHROW(model_key(use.key).read(ConfigNode::schema_default(use.default_value, use.key), model));
      }
    }
    // Each dimension is sized by the key of its name, or derived from a key the kind takes.
    ModelConfig example = load_preset(kind.example_preset).model;
    for (const auto& dim : kind.dimensions) {
      INFO(dim);
      if (const auto derived = derived_dimension(example, dim)) {
        CHECK(std::find(keys.begin(), keys.end(), derived->key) != keys.end());
        CHECK(derived->smallest >= 1);
        CHECK(std::find(keys.begin(), keys.end(), dim) == keys.end());
        continue;
      }
      CHECK(std::find(keys.begin(), keys.end(), dim) != keys.end());
      CHECK(model_key(dim).dimension_size);
    }
    const mtf::LayoutRules layout = mtf::LayoutRules::parse(kind.default_layout);
    for (const auto& [dim, axis] : layout.rules()) {
      CHECK(std::find(kind.dimensions.begin(), kind.dimensions.end(), dim) != kind.dimensions.end());
    }
  }
}

TEST_CASE("model kinds: every kind builds its example preset with the parameters of its closed form") {
  for (const auto& kind : model_kinds()) {
    INFO(kind.name << ": " << kind.example_preset);
    const RunConfig config = load_preset(kind.example_preset);
    REQUIRE(config.model.kind == kind.kind);
    mtf::Graph graph(1);
    const BuiltModel model = build_model(graph, config.model);
    CHECK(model.loss.valid());
    std::int64_t parameters = 0;
    for (const auto& variable : graph.variables()) parameters += variable.shape().num_elements();
    CHECK(parameters == parameter_count(config.model));
    CHECK(paper_parameter_count(config.model) <= parameter_count(config.model));
    CHECK(training_flops_per_step(config.model) > 0);
    CHECK_FALSE(describe_model(config.model).empty());
  }
}

TEST_CASE("model kinds: an unknown kind is an error with a suggestion, never another kind") {
  // The valid kinds are the registry's rows, in order.
  std::string names;
  for (const auto& kind : model_kinds()) names += (names.empty() ? "" : ", ") + kind.name;
  CHECK_THROWS_WITH(
      model_kind_names().parse("transformer"),
      "unknown model kind 'transformer' (did you mean 'transformer_lm'?); valid model kinds are " + names);
  try {
    parse_run_config("hardware: {topology: ring-8}\nmesh: {shape: batch:8}\nmodel: {kind: moe, batch: 8}\n",
                     "kinds.yaml");
    FAIL("no error");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()) ==
          "kinds.yaml:3: model.kind: 'moe' is not valid (did you mean 'mlp'?); valid values are " + names);
  }
}

TEST_CASE("model kinds: nothing in workloads/ but the registry names a model kind") {
  // The rule of issue 8: a kind is one registry row, so no other code may choose by kind.
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator("workloads")) {
    const auto path = entry.path();
    if (path.extension() != ".cpp" && path.extension() != ".hpp") continue;
    if (path.generic_string() == "workloads/models/model_kinds.cpp") continue;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find("ModelKind::") != std::string::npos) found.push_back(path.generic_string());
  }
  CHECK(found == std::vector<std::string>{});
}
