// The config schema against itself and the parser: every row complete, every row documented by --schema,
// every misspelt key suggested, and every preset's resolved config read back to the same config.
#include "workloads/config/config_schema.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <sstream>

#include "tests/topologies/support/input_error_of.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/config/resolved_config.hpp"
#include "workloads/models/model_kinds.hpp"
#include "workloads/models/model_section.hpp"
#include "workloads/report/schema_text.hpp"

using tpusim::InputError;
using namespace tpusim::workloads;

namespace {

const char* const kMinimal =
    "mesh: {shape: batch:8}\n"
    "hardware: {topology: ring-8}\n"
    "model: {kind: mlp, layers: 1, d_model: 8, d_ff: 16, batch: 8}\n";

std::string schema_error_of(const std::string& yaml) {
  return tpusim::test_support::input_error_of([&] { parse_run_config(yaml, "schema.yaml"); });
}

// A JSON value of the resolved config as YAML.
YAML::Node yaml_of(const nlohmann::json& value) {
  YAML::Node node;
  if (value.is_object()) {
    node = YAML::Node(YAML::NodeType::Map);
    for (const auto& [key, item] : value.items()) node[key] = yaml_of(item);
  } else if (value.is_string()) {
    node = value.get<std::string>();
  } else {
    node = value.dump();
  }
  return node;
}

// The config that writes every key of `config` as the resolved config reports it.
std::string written_back(const RunConfig& config) {
  const nlohmann::json resolved = resolved_config(config);
  YAML::Node root(YAML::NodeType::Map);
  for (const auto& row : config_schema()) {
    const nlohmann::json& section = row.section().empty() ? resolved : resolved.at(row.section());
    const nlohmann::json& value = section.at(row.result_field());
    if (row.section().empty()) {
      root[row.name()] = yaml_of(value);
    } else {
      root[row.section()][row.name()] = yaml_of(value);
    }
  }
  for (const auto& use : model_kind(config.model.kind).keys)
    root["model"][use.key] = yaml_of(resolved["model"][use.key]);
  return YAML::Dump(root) + "\n";
}

}  // namespace

TEST_CASE("schema: every row has a type, documentation, a reader, a result and a default or is required") {
  for (const auto& row : config_schema()) {
    INFO(row.key);
    CHECK_FALSE(row.type.empty());
    CHECK_FALSE(row.doc.empty());
    CHECK(row.read);
    CHECK(row.resolved);
    switch (row.absent) {
      case ConfigKey::Absent::unset:
        FAIL("the row says nothing of a config without the key");
        break;
      case ConfigKey::Absent::required:
        break;
      case ConfigKey::Absent::default_value:
        CHECK_FALSE(row.default_value.empty());
        break;
      case ConfigKey::Absent::computed:
        CHECK(row.fallback);
        CHECK_FALSE(row.default_note.empty());
        break;
      case ConfigKey::Absent::nothing:
        CHECK_FALSE(row.default_note.empty());
        break;
    }
    for (const auto& need : row.dependencies) CHECK(find_config_key(need) != nullptr);
  }
  for (const auto& key : model_key_table()) {
    INFO("model." << key.name);
    CHECK_FALSE(key.type.empty());
    CHECK_FALSE(key.doc.empty());
    CHECK(key.read);
    CHECK(key.resolved);
    bool used = false;
    for (const auto& kind : model_kinds()) {
      for (const auto& use : kind.keys) used = used || use.key == key.name;
    }
    CHECK(used);
  }
}

TEST_CASE("schema: a config of the required keys only gets every default") {
  const RunConfig config = parse_run_config(kMinimal, "configs/minimal.yaml");
  CHECK(config.name == "minimal");
  CHECK(config.description.empty());
  CHECK(config.hardware.device.name() == "tpu-v2-core");
  CHECK(config.hardware.collective_algorithm_by_axis.empty());
  CHECK(config.mesh.mapping.kind() == tpusim::mtf::MappingSpec::Kind::rings);
  CHECK(config.mesh.layout_text() == "batch:batch");
  CHECK(config.model.activation_dtype == tpusim::mtf::DType::bfloat16);
  CHECK(config.training.optimizer == OptimizerKind::adafactor);
  CHECK(config.training.learning_rate == 0.01);
  CHECK(config.training.numerics == NumericsMode::timing);
  CHECK(config.training.steps == 1);
  CHECK(config.training.seed == 1);
  CHECK(config.training.output_dir == "results/minimal");
  // A default is located at its section, for errors found when the model is built.
  CHECK(config.where("mesh.mapping") == "configs/minimal.yaml:1: mesh (default mapping rings)");
  CHECK(config.where("mesh.layout") == "configs/minimal.yaml:1: mesh (default layout batch:batch)");
  CHECK(parse_run_config(std::string("hardware: {topology: tpu-v2-pod}\n") + "mesh: {shape: batch:512}\n" +
                             "model: {kind: mlp, layers: 1, d_model: 8, d_ff: 16, batch: 512}\n",
                         "t.yaml")
            .hardware.topology.name() == "tpu-v2-pod");
}

TEST_CASE("schema: --schema documents every row, model kind and model key") {
  std::ostringstream text;
  print_schema(text);
  const std::string schema = "\n" + text.str();
  for (const auto& row : config_schema()) {
    INFO(row.key);
    CHECK_THAT(schema, Catch::Contains("\n" + row.key + " "));
    CHECK_THAT(schema,
               Catch::Contains(row.absent == ConfigKey::Absent::required ? "required"
                                                                         : "default: " + row.default_text()));
  }
  for (const auto& kind : model_kinds()) CHECK_THAT(schema, Catch::Contains("\n  " + kind.name + " "));
  for (const auto& key : model_key_table()) CHECK_THAT(schema, Catch::Contains("\nmodel." + key.name + " "));
  const nlohmann::json json = schema_json();
  CHECK(json["keys"].size() == config_schema().size());
  CHECK(json["model_kinds"].size() == model_kinds().size());
  CHECK(json["model_keys"].size() == model_key_table().size());
  CHECK(json["keys"][0]["key"] == "name");
}

TEST_CASE("schema: a misspelt key is an unknown key that suggests the real one") {
  const YAML::Node minimal = YAML::Load(kMinimal);
  auto misspelt = [&](const std::string& section, const std::string& name) {
    YAML::Node root = YAML::Clone(minimal);
    const std::string wrong = name + name.back();
    if (section.empty()) {
      root[wrong] = "x";
    } else {
      root[section][wrong] = "1";
    }
    const std::string path = (section.empty() ? "" : section + ".") + wrong;
    const std::string error = schema_error_of(YAML::Dump(root));
    INFO(error);
    CHECK_THAT(error,
               Catch::Contains(": " + path + ": unknown key (did you mean '" + name + "'?); valid keys are"));
  };
  for (const auto& row : config_schema()) {
    if (!row.whole_section) misspelt(row.section(), row.name());
  }
  for (const auto& use : model_kind(ModelKind::mlp).keys) misspelt("model", use.key);
  misspelt("model", "kind");
}

TEST_CASE("schema: the sweep keys are the schema's rows and every kind's model keys") {
  const auto keys = config_keys();
  for (const auto& row : config_schema()) {
    CHECK(is_config_key(row.key));
    CHECK(is_config_key(row.section().empty() ? row.key : row.section()));
  }
  for (const auto& key : model_key_table()) CHECK(is_config_key("model." + key.name));
  CHECK(is_config_key("hardware.collectives.batch"));
  CHECK_FALSE(is_config_key("hardware.collectives.a-b"));
  CHECK_FALSE(is_config_key("model.d_fff"));
  CHECK(config_subkeys_text() ==
        " and hardware.layer_checkpoint_names.<value name> and hardware.collectives.<mesh axis>");
}

TEST_CASE("schema: the resolved config of every preset reads back to the same config") {
  for (const auto& name : preset_names()) {
    INFO(name);
    const RunConfig config = load_preset(name);
    const std::string yaml = written_back(config);
    INFO(yaml);
    const RunConfig again = parse_run_config(yaml, preset_source(name));
    CHECK(resolved_config(again) == resolved_config(config));
    CHECK(again.hardware.topology.num_cores() == config.hardware.topology.num_cores());
    CHECK(again.mesh.layout.rules() == config.mesh.layout.rules());
  }
}
