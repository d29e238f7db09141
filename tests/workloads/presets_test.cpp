#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "topologies/support/input_error.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/models/model_formulas.hpp"

using namespace tpusim::workloads;

TEST_CASE("every shipped preset parses and its mesh covers its topology") {
  const auto names = preset_names();
  REQUIRE(names.size() >= 16);
  for (const auto& name : names) {
    INFO(name);
    const RunConfig config = load_preset(name);
    CHECK(config.name == name);
    CHECK(config.mesh.num_cores() == config.hardware.topology.num_cores());
    CHECK_FALSE(config.description.empty());
  }
}

TEST_CASE("the built-in default is the 4.9B language model on the 512-core TPU v2 pod") {
  const RunConfig config = load_preset(default_preset_name());
  CHECK(config.hardware.topology.name() == "tpu-v2-pod");
  CHECK(config.hardware.topology.num_cores() == 512);
  CHECK(config.mesh.shape_text() == "batch:16;model:32");
  CHECK(config.model.kind == ModelKind::transformer_lm);
  CHECK(config.training.numerics == NumericsMode::timing);
  CHECK(config.training.steps == 1);
  CHECK(std::round(parameter_count(config.model) / 1e7) == 490);
}

TEST_CASE("an unknown preset lists the valid ones") {
  try {
    load_preset("lm-s6");
    FAIL("no error");
  } catch (const tpusim::InputError& error) {
    CHECK(std::string(error.what())
              .rfind("unknown preset 'lm-s6' (did you mean 'lm-s0'?); valid presets are ", 0) == 0);
  }
}

// The paper's tables (mesh_tf/README.md, The paper's figures), in billions, as published (two decimals, or
// one for 2.9B): our exact count of the built model (which adds layer-norm scales and positional embeddings)
// rounds to them.
TEST_CASE("the presets reproduce the paper's parameter counts and meshes") {
  struct Row {
    const char* preset;
    double billions;
    double rounding;  // half a unit of the last published digit
    const char* mesh;
  };
  const std::vector<Row> rows = {
      {"lm-s-1", 0.14, 0.005, "batch:32"},
      {"lm-s0", 0.22, 0.005, "batch:32"},
      {"lm-s1", 0.37, 0.005, "batch:8;model:4"},
      {"lm-s2", 0.67, 0.005, "batch:8;model:4"},
      {"lm-s3", 1.28, 0.005, "batch:16;model:8"},
      {"lm-s4", 2.48, 0.005, "batch:16;model:32"},
      {"lm-s5", 4.90, 0.005, "batch:16;model:32"},
      {"translation-s0", 0.24, 0.005, "batch:32"},
      {"translation-s2", 0.77, 0.005, "batch:8;model:4"},
      {"translation-s4", 2.9, 0.05, "batch:16;model:8"},
  };
  for (const auto& row : rows) {
    INFO(row.preset);
    const RunConfig config = load_preset(row.preset);
    CHECK(std::abs(parameter_count(config.model) / 1e9 - row.billions) <= row.rounding);
    CHECK(std::abs(paper_parameter_count(config.model) / 1e9 - row.billions) <= row.rounding);
    CHECK(config.mesh.shape_text() == row.mesh);
  }
}

TEST_CASE("parameter counts follow the paper's formula exactly") {
  const RunConfig config = load_preset("lm-s5");
  const auto& m = config.model;
  CHECK(paper_parameter_count(m) ==
        m.layers * (4 * m.d_model * m.heads * m.d_kv + 2 * m.d_model * m.d_ff) + 2 * m.vocab * m.d_model);
  CHECK(paper_parameter_count(m) == 4898947072);
  // Layer norm scales (2 per layer and one final, d_model each) and the positional embedding [length,
  // d_model].
  CHECK(parameter_count(m) - paper_parameter_count(m) == (2 * 6 + 1) * 1024 + 256 * 1024);
}
