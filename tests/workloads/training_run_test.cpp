// Problems that only show when the model is laid out are still reported at their config key.
#include "workloads/training_run.hpp"

#include <catch2/catch.hpp>

#include "topologies/support/input_error.hpp"
#include "workloads/config/config_parser.hpp"

using namespace tpusim::workloads;

TEST_CASE("a layout the engine rejects is reported at mesh.layout") {
  const RunConfig config = parse_run_config(
      "hardware: {topology: ring-8}\n"
      "mesh:\n"
      "  shape: batch:2;model:4\n"
      "  layout: batch:batch;d_ff:batch\n"
      "model: {kind: transformer_lm, layers: 1, d_model: 8, d_ff: 16, heads: 4, d_kv: 2, vocab: 16, batch: 4,"
      " length: 4}\n",
      "configs/bad-layout.yaml");
  try {
    run_training(config);
    FAIL("no error");
  } catch (const tpusim::InputError& error) {
    const std::string text = error.what();
    INFO(text);
    CHECK(
        text.rfind(
            "configs/bad-layout.yaml:4: mesh.layout: the model cannot be laid out on mesh batch:2;model:4: ",
            0) == 0);
    CHECK(text.find("batch") != std::string::npos);
  }
}

TEST_CASE("a model that does not fit its device is reported but still simulated") {
  const RunConfig config = parse_run_config(
      "hardware: {topology: ring-8, hbm_per_core: 64KiB}\n"
      "mesh: {shape: \"batch:2;model:4\"}\n"
      "model: {kind: transformer_lm, layers: 1, d_model: 64, d_ff: 256, heads: 4, d_kv: 16, vocab: 256, "
      "batch: 4,"
      " length: 16}\n",
      "configs/small-hbm.yaml");
  const RunReport report = run_training(config);
  CHECK(report.memory.hbm_bytes == 65536);
  CHECK_FALSE(report.memory.fits());
  CHECK(report.memory.total_bytes > report.memory.hbm_bytes);
  CHECK(report.timeline.step_time_s > 0);
}

TEST_CASE("an algorithm that cannot run a collective the model needs is reported at hardware.collectives") {
  // bucket2d needs a two-dimensional group; the model axis on ring-8 is one ring.
  const RunConfig config = parse_run_config(
      "hardware:\n"
      "  topology: ring-8\n"
      "  collectives: {model: bucket2d}\n"
      "mesh: {shape: \"batch:2;model:4\"}\n"
      "model: {kind: transformer_lm, layers: 1, d_model: 8, d_ff: 16, heads: 4, d_kv: 2, vocab: 16, batch: 4,"
      " length: 4}\n",
      "configs/bad-algorithm.yaml");
  CHECK_THROWS_WITH(
      run_training(config),
      Catch::StartsWith("configs/bad-algorithm.yaml:3: hardware.collectives: allreduce over mesh "
                        "dimension model (") &&
          Catch::Contains("bucket2d needs a group with two dimensions"));
}
