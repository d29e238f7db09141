// Problems that only show when the model is laid out are still reported at their config key.
#include "workloads/training_run.hpp"

#include <catch2/catch.hpp>
#include <sstream>

#include "topologies/support/child_process.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/preset_catalog.hpp"

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

TEST_CASE("a pod allreduce algorithm that cannot run on the pod is reported at hardware.pod_allreduce") {
  // Summing over every core of ring-8 takes it, and bucket2d needs two group dimensions, which a ring lacks.
  const RunConfig config = parse_run_config(
      "hardware: {topology: ring-8, pod_allreduce: bucket2d}\n"
      "mesh: {shape: \"batch:8\"}\n"
      "model: {kind: mlp, layers: 2, d_model: 16, d_ff: 32, batch: 16}\n",
      "configs/bad-pod.yaml");
  CHECK_THROWS_WITH(run_training(config),
                    Catch::StartsWith("configs/bad-pod.yaml:1: hardware.pod_allreduce: allreduce over mesh "
                                      "dimension batch (") &&
                        Catch::Contains("bucket2d needs a group with two dimensions"));
}

// hardware.collective_backend: the TPU backend (the default) issues the softmax's max over the split vocab as
// a masked allreduce of group-size copies; ideal as a max allreduce. The numbers are the same either way.
// Each run is a child process (one simulation per process).
TEST_CASE("hardware.collective_backend chooses how the step's collectives are issued") {
  const std::string model =
      "mesh: {shape: \"batch:2;model:4\", layout: \"batch:batch;vocab:model;heads:model;d_ff:model\"}\n"
      "model: {kind: transformer_lm, layers: 1, d_model: 8, d_ff: 16, heads: 4, d_kv: 2, vocab: 16, batch: 4,"
      " length: 4}\n"
      "training: {numerics: full}\n";
  struct Outcome {
    double loss = 0, max_time_s = 0;
    std::uint64_t max_bytes = 0;
    int issued_as_sum = 0;
  };
  auto run = [&](const std::string& backend) {
    const auto child = tpusim::run_in_child([&] {
      const RunReport report = run_training(parse_run_config(
          "hardware: {topology: ring-8, collective_backend: " + backend + "}\n" + model, "c.yaml"));
      for (const auto& c : report.collectives) {
        if (c.record.reduce != tpusim::sim::ReduceOp::max) continue;
        std::ostringstream out;
        out.precision(17);
        out << report.steps.at(0).loss.value() << ' ' << c.time_s << ' ' << c.record.bytes_per_core << ' '
            << (c.record.issued.at(0).reduce == tpusim::sim::ReduceOp::sum);
        return out.str();
      }
      return std::string("no max allreduce");
    });
    std::istringstream in(child.output);
    Outcome outcome;
    in >> outcome.loss >> outcome.max_time_s >> outcome.max_bytes >> outcome.issued_as_sum;
    REQUIRE(in);
    return outcome;
  };
  const Outcome tpu = run("mesh_tf_tpu");
  const Outcome ideal = run("ideal");
  CHECK(tpu.loss == ideal.loss);
  CHECK(tpu.issued_as_sum == 1);
  CHECK(ideal.issued_as_sum == 0);
  CHECK(tpu.max_bytes == 4 * ideal.max_bytes);  // model has 4 cores: 4 stacked copies
  CHECK(tpu.max_time_s > ideal.max_time_s);
  CHECK_THROWS_WITH(
      parse_run_config("hardware: {topology: ring-8, collective_backend: xla}\n" + model, "b.yaml"),
      Catch::StartsWith("b.yaml:1: hardware.collective_backend: 'xla' is not valid"));
}

// A regression guard: the simulated step of the default run as tpusim printed it before the matrix unit and
// fusion were modelled (commit 3978b24, `tpusim run --json`), every op timed max(flops / peak, bytes / HBM
// bandwidth). The two mechanisms switched off must give it back exactly; each one on must change it. (One
// simulation per process: one run per test case.)
constexpr double kRooflineDefaultStep_s = 0.25342450741571393;

RunConfig default_run(bool units, tpusim::mtf::FusionPolicy fusion) {
  RunConfig config = load_preset("lm-s5");
  config.hardware.device =
      config.hardware.device.with_matrix_unit_timing(units).with_vector_unit_timing(units);
  config.hardware.fusion = fusion;
  return config;
}

TEST_CASE(
    "with the matrix and vector units and fusion off, the default step is the plain roofline's, to the bit") {
  CHECK(run_training(default_run(false, tpusim::mtf::FusionPolicy::none)).timeline.step_time_s ==
        kRooflineDefaultStep_s);
}

TEST_CASE("fusion alone shortens the default step by more than a tenth") {
  CHECK(run_training(default_run(false, tpusim::mtf::FusionPolicy::xla)).timeline.step_time_s <
        0.9 * kRooflineDefaultStep_s);
}

TEST_CASE("the matrix and vector units alone lengthen the default step") {
  CHECK(run_training(default_run(true, tpusim::mtf::FusionPolicy::none)).timeline.step_time_s >
        kRooflineDefaultStep_s);
}

TEST_CASE("lower_only gives the memory a full run reports, and runs no step") {
  const RunConfig config = parse_run_config(
      "hardware: {topology: ring-8, hbm_per_core: 64KiB}\n"
      "mesh: {shape: \"batch:2;model:4\"}\n"
      "model: {kind: transformer_lm, layers: 2, d_model: 64, d_ff: 256, heads: 4, d_kv: 16, vocab: 256, "
      "batch: 4, length: 16}\n",
      "configs/lower-only.yaml");
  const auto summary = [&](bool lower_only) {
    return tpusim::run_in_child([&] {
             RunOptions options;
             options.lower_only = lower_only;
             const RunReport report = run_training(config, options);
             std::ostringstream text;
             text << report.memory.total_bytes << " " << report.steps.size() << " "
                  << report.timeline.entries.size();
             return text.str();
           })
        .output;
  };
  std::istringstream full(summary(false)), lowered(summary(true));
  std::uint64_t full_bytes = 0, lowered_bytes = 0;
  std::size_t full_steps = 0, lowered_steps = 0, full_entries = 0, lowered_entries = 0;
  full >> full_bytes >> full_steps >> full_entries;
  lowered >> lowered_bytes >> lowered_steps >> lowered_entries;
  CHECK(lowered_bytes == full_bytes);
  CHECK(full_bytes > 65536);  // over its HBM, which a full run reports and still simulates
  CHECK(full_steps == 1);
  CHECK(full_entries > 0);
  CHECK(lowered_steps == 0);
  CHECK(lowered_entries == 0);
}
