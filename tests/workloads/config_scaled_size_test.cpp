// Model sizes given per mesh axis ({per: AXIS, value: N}) are N times the axis's size on the mesh the config
// gets, so they follow a mesh that follows the topology; a plain number stays fixed.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "tests/topologies/support/input_error_of.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/resolved_config.hpp"

using namespace tpusim::workloads;

namespace {

// A small LM whose d_ff, heads and batch lines are given; the errors quote lines 6 to 8.
std::string lm(const std::string& topology, const std::string& shape, const std::string& d_ff,
               const std::string& heads, const std::string& batch) {
  return "hardware: {topology: \"" + topology + "\"}\n" +  // 1
         "mesh: {shape: \"" + shape + "\"}\n" +            // 2
         "model:\n" +                                      // 3
         "  kind: transformer_lm\n" +                      // 4
         "  layers: 1\n" +                                 // 5
         "  d_ff: " + d_ff + "\n" +                        // 6
         "  heads: " + heads + "\n" +                      // 7
         "  batch: " + batch + "\n" +                      // 8
         "  d_model: 16\n  d_kv: 4\n  vocab: 64\n  length: 8\n";
}

RunConfig parse_scaled(const std::string& yaml) { return parse_run_config(yaml, "configs/s.yaml"); }

std::string scaled_error_of(const std::string& yaml) {
  return tpusim::test_support::input_error_of([&] { parse_scaled(yaml); });
}

}  // namespace

TEST_CASE("scaled sizes: N per processor of a mesh axis, of several, or of every core") {
  const RunConfig config = parse_scaled(lm("tpu-v2-32", "batch:*;model:4", "{per: model, value: 64}",
                                           "{per: model, value: 2}", "{per: batch, value: 3}"));
  CHECK(config.mesh.shape_text() == "batch:8;model:4");
  CHECK(config.model.d_ff == 256);
  CHECK(config.model.heads == 8);
  CHECK(config.model.batch == 24);
  // The resolved config holds the sizes, so it reads back as a config of plain numbers.
  const auto resolved = resolved_config(config);
  CHECK(resolved["model"]["d_ff"] == 256);
  CHECK(resolved["model"]["batch"] == 24);

  CHECK(parse_scaled(lm("tpu-v2-32", "batch:8;model:4", "64", "4", "{per: [batch, model], value: 2}"))
            .model.batch == 64);
  CHECK(parse_scaled(lm("tpu-v2-32", "batch:8;model:4", "64", "4", "{per: cores, value: 2}")).model.batch ==
        64);
  // A plain number stays what it is on any pod (strong scaling).
  CHECK(parse_scaled(lm("tpu-v2-pod", "batch:*;model:4", "64", "4", "256")).model.batch == 256);
}

TEST_CASE("scaled sizes follow a mesh that follows the topology") {
  std::mt19937 random(5);
  for (int trial = 0; trial < 30; ++trial) {
    const int kx = 1 << (random() % 4), ky = 1 << (random() % 3), cores_per_chip = 1 + random() % 2;
    const int cores = kx * ky * cores_per_chip;
    const int model = 1 << (random() % 3);
    if (cores % model != 0) continue;
    const int batch_axis = cores / model;
    const std::int64_t d_ff_per = 8 << (random() % 3), heads_per = 1 + random() % 3,
                       batch_per = 1 + random() % 4;
    const std::string topology =
        "torus:" + std::to_string(kx) + "x" + std::to_string(ky) + ",cores=" + std::to_string(cores_per_chip);
    INFO(topology << " model " << model);
    const RunConfig config = parse_scaled(lm(topology, "batch:*;model:" + std::to_string(model),
                                             "{per: model, value: " + std::to_string(d_ff_per) + "}",
                                             "{value: " + std::to_string(heads_per) + ", per: model}",
                                             "{per: batch, value: " + std::to_string(batch_per) + "}"));
    CHECK(config.model.d_ff == d_ff_per * model);
    CHECK(config.model.heads == heads_per * model);
    CHECK(config.model.batch == batch_per * batch_axis);
  }
}

TEST_CASE("scaled sizes: problems are located at the key inside the map") {
  CHECK(scaled_error_of(lm("tpu-v2-32", "batch:8;model:4", "{per: modle, value: 64}", "4", "8")) ==
        "configs/s.yaml:6: model.d_ff.per: mesh batch:8;model:4 has no axis 'modle' (did you mean 'model'?); "
        "per takes one of its axes (batch, model), a list of them, or cores (every core)");
  CHECK(scaled_error_of(lm("tpu-v2-32", "batch:8;model:4", "{per: model, value: 0}", "4", "8")) ==
        "configs/s.yaml:6: model.d_ff.value: 0 must be at least 1");
  CHECK(scaled_error_of(lm("tpu-v2-32", "batch:8;model:4", "{per: model, vaule: 64}", "4", "8")) ==
        "configs/s.yaml:6: model.d_ff.vaule: unknown key (did you mean 'value'?); valid keys are per, value");
  CHECK(scaled_error_of(lm("tpu-v2-32", "batch:8;model:4", "{per: model}", "4", "8")) ==
        "configs/s.yaml:6: model.d_ff: missing key 'model.d_ff.value'");
  CHECK(scaled_error_of(lm("tpu-v2-32", "batch:8;model:4", "64", "4", "{per: [batch, batch], value: 1}")) ==
        "configs/s.yaml:8: model.batch.per[1]: names 'batch' twice");
  CHECK(scaled_error_of(lm("tpu-v2-32", "batch:8;model:4", "64", "4", "{per: [], value: 1}")) ==
        "configs/s.yaml:8: model.batch.per: the list of mesh axes is empty");
  // The size it gives is checked like a written one, at the key.
  CHECK(
      scaled_error_of(lm("tpu-v2-32", "batch:4;model:8", "64", "{per: batch, value: 1}", "8")) ==
      "configs/s.yaml:7: model.heads: 4 does not split evenly over mesh axis 'model' of size 8 (layout rule "
      "heads:model)");
  // Only sizes of tensor dimensions scale.
  std::string layers = lm("tpu-v2-32", "batch:8;model:4", "64", "4", "8");
  layers.replace(layers.find("layers: 1"), 9, "layers: {per: batch, value: 1}");
  CHECK(scaled_error_of(layers) == "configs/s.yaml:5: model.layers: expected a value, found a map");
}
