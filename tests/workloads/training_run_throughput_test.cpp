// The run report's throughput: tokens and examples per simulated second and model FLOPs per second per core,
// so that runs on pods of different sizes (weak and strong scaling) compare.
#include <catch2/catch.hpp>

#include "workloads/config/config_parser.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim::workloads;

TEST_CASE("throughput: a language model's tokens are its sequences times their length") {
  const RunConfig config = parse_run_config(
      "hardware: {topology: ring-8}\n"
      "mesh: {shape: \"batch:2;model:4\"}\n"
      "model: {kind: transformer_lm, layers: 1, d_model: 16, d_ff: 32, heads: 4, d_kv: 4, vocab: 32, batch: "
      "6,"
      " length: 5}\n",
      "configs/lm.yaml");
  const RunReport report = run_training(config);
  const double step_s = report.timeline.step_time_s;
  REQUIRE(step_s > 0);
  CHECK(report.tokens_per_step == 30);
  CHECK(report.example_unit == "sequences");
  CHECK(report.tokens_per_s == Approx(30 / step_s).epsilon(1e-12));
  CHECK(report.examples_per_s == Approx(6 / step_s).epsilon(1e-12));
  CHECK(report.flops_per_s_per_core == Approx(report.model_flops_per_step / step_s / 8).epsilon(1e-12));
  CHECK(report.flops_per_s_per_core ==
        Approx(report.mfu * config.hardware.device.peak_flops()).epsilon(1e-12));
}

TEST_CASE("throughput: the MLP has no sequences, so each example is one token") {
  const RunConfig config = parse_run_config(
      "hardware: {topology: ring-8}\n"
      "mesh: {shape: \"batch:4;model:2\"}\n"
      "model: {kind: mlp, layers: 2, d_model: 16, d_ff: 64, batch: 32}\n",
      "configs/mlp.yaml");
  const RunReport report = run_training(config);
  const double step_s = report.timeline.step_time_s;
  REQUIRE(step_s > 0);
  CHECK(report.tokens_per_step == 32);
  CHECK(report.example_unit == "examples");
  CHECK(report.examples_per_s == Approx(32 / step_s).epsilon(1e-12));
  CHECK(report.tokens_per_s == report.examples_per_s);
  CHECK(report.flops_per_s_per_core == Approx(report.achieved_flops / 8).epsilon(1e-12));
}
