#include "workloads/config/config_parser.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>
#include <utility>

#include "sim/algorithm_registry.hpp"
#include "tests/topologies/support/input_error_of.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

using tpusim::InputError;
using tpusim::workloads::parse_run_config;

namespace {

// A valid config; tests replace one line to break it. Line numbers matter: the errors quote them.
const std::string kValid =
    "name: small\n"               // 1
    "hardware:\n"                 // 2
    "  topology: tpu-v2-32\n"     // 3
    "mesh:\n"                     // 4
    "  shape: batch:8;model:4\n"  // 5
    "model:\n"                    // 6
    "  kind: transformer_lm\n"    // 7
    "  layers: 2\n"               // 8
    "  d_model: 64\n"             // 9
    "  d_ff: 256\n"               // 10
    "  heads: 8\n"                // 11
    "  d_kv: 16\n"                // 12
    "  vocab: 128\n"              // 13
    "  batch: 16\n"               // 14
    "  length: 32\n"              // 15
    "training:\n"                 // 16
    "  optimizer: adam\n"         // 17
    "  steps: 3\n";               // 18

std::string replace(const std::string& text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.substr(0, at) + to + text.substr(at + from.size());
}

std::string error_of(const std::string& yaml) {
  return tpusim::test_support::input_error_of([&] { parse_run_config(yaml, "configs/test.yaml"); });
}

}  // namespace

TEST_CASE("a valid config resolves with defaults filled in") {
  const auto config = parse_run_config(kValid, "configs/test.yaml");
  CHECK(config.name == "small");
  CHECK(config.hardware.topology.num_cores() == 32);
  CHECK(config.hardware.device.name() == "tpu-v2-core");
  CHECK(config.mesh.shape_text() == "batch:8;model:4");
  CHECK(config.mesh.layout_text() == "batch:batch;vocab:model;d_ff:model;heads:model");
  CHECK(config.model.d_ff == 256);
  CHECK(config.model.activation_dtype == tpusim::mtf::DType::bfloat16);
  CHECK(config.training.optimizer == tpusim::workloads::OptimizerKind::adam);
  CHECK(config.training.numerics == tpusim::workloads::NumericsMode::timing);
  CHECK(config.training.steps == 3);
  CHECK(config.training.output_dir == "results/small");
}

TEST_CASE("an unknown key is reported with its file and line and a suggestion") {
  CHECK(error_of(replace(kValid, "  d_ff: 256\n", "  d_fff: 256\n")) ==
        "configs/test.yaml:10: model.d_fff: unknown key (did you mean 'd_ff'?); valid keys are kind, layers, "
        "d_model, d_ff, heads, d_kv, vocab, batch, length, kv_heads, mlp, norm, positions, attention, "
        "flash_block_q, flash_block_kv, activation_dtype, dropout");
  CHECK(error_of(replace(kValid, "training:\n", "trainig:\n")) ==
        "configs/test.yaml:16: trainig: unknown key (did you mean 'training'?); valid keys are name, "
        "description, "
        "hardware, mesh, model, training");
}

TEST_CASE("a key of another model kind is an unknown key") {
  CHECK(error_of(replace(kValid, "  length: 32\n", "  length: 32\n  experts: 4\n")) ==
        "configs/test.yaml:16: model.experts: unknown key; valid keys are kind, layers, d_model, d_ff, "
        "heads, d_kv, vocab, batch, length, kv_heads, mlp, norm, positions, attention, flash_block_q, "
        "flash_block_kv, activation_dtype, dropout");
}

TEST_CASE("a value of the wrong type names the key and the expected type") {
  CHECK(error_of(replace(kValid, "  layers: 2\n", "  layers: two\n")) ==
        "configs/test.yaml:8: model.layers: 'two' is not a whole number");
  CHECK(error_of(replace(kValid, "  heads: 8\n", "  heads: [8]\n")) ==
        "configs/test.yaml:11: model.heads: expected a value, found a list");
  CHECK(error_of(replace(kValid, "  optimizer: adam\n", "  optimizer: adamw\n")) ==
        "configs/test.yaml:17: training.optimizer: 'adamw' is not valid (did you mean 'adam'?); valid values "
        "are sgd, adam, adafactor, momentum, lars, lamb");
  CHECK(error_of(replace(kValid, "  steps: 3\n", "  steps: 0\n")) ==
        "configs/test.yaml:18: training.steps: 0 must be at least 1");
}

TEST_CASE("the MLPerf optimizers parse by name and a bad name lists every valid one") {
  using tpusim::workloads::OptimizerKind;
  const std::pair<std::string, OptimizerKind> names[] = {
      {"momentum", OptimizerKind::momentum}, {"lars", OptimizerKind::lars}, {"lamb", OptimizerKind::lamb}};
  for (const auto& [name, kind] : names) {
    const auto config =
        parse_run_config(replace(kValid, "  optimizer: adam\n", "  optimizer: " + name + "\n"), "test.yaml");
    CHECK(config.training.optimizer == kind);
    CHECK(tpusim::workloads::to_string(kind) == name);
  }
  CHECK(error_of(replace(kValid, "  optimizer: adam\n", "  optimizer: lamb2\n")) ==
        "configs/test.yaml:17: training.optimizer: 'lamb2' is not valid (did you mean 'lamb'?); valid values "
        "are sgd, adam, adafactor, momentum, lars, lamb");
}

TEST_CASE("sizes that would overflow the engine's 64-bit counts are refused, not wrapped") {
  // strtoll saturates: 2^64 used to become 2^63-1 and run.
  CHECK(error_of(replace(kValid, "  d_model: 64\n", "  d_model: 18446744073709551616\n")) ==
        "configs/test.yaml:9: model.d_model: 18446744073709551616 is out of range");
  // 2^32 + 2 layers used to become an int of 2 layers, 3e9 a negative layer count.
  CHECK(error_of(replace(kValid, "  layers: 2\n", "  layers: 4294967298\n")) ==
        "configs/test.yaml:8: model.layers: 4294967298 is more than the 1000 layers a model may have");
  CHECK(error_of(replace(kValid, "  layers: 2\n", "  layers: 3000000000\n")) ==
        "configs/test.yaml:8: model.layers: 3000000000 is more than the 1000 layers a model may have");
  // Each size alone is a valid int64, but the parameter count and tensor sizes overflowed.
  CHECK(error_of(replace(kValid, "  d_model: 64\n", "  d_model: 4611686018427387904\n")) ==
        "configs/test.yaml:6: model: its tensor [batch, length, d_model] would have 2.36e+21 elements, more "
        "than the 2.81e+14 a tensor may have on the whole pod");
}

TEST_CASE("the logical size of a tensor is bounded at 2^48 elements on the whole pod, not per core") {
  // [batch, length, d_ff] = 16 x 32 x d_ff = 2^9 d_ff elements, the largest tensor of kValid's model for any
  // d_ff of at least 128 ([d_model, d_ff] = 2^6 d_ff, [batch, length, vocab] = 2^16): the config takes it if
  // and only if 2^9 d_ff <= 2^48. No core holds it: lowering bounds the slices (2^40 each).
  const auto d_ff_error = [](std::int64_t d_ff) {
    return error_of(replace(kValid, "  d_ff: 256\n", "  d_ff: " + std::to_string(d_ff) + "\n"));
  };
  CHECK(d_ff_error(std::int64_t(1) << 39) == "(no error)");
  CHECK(d_ff_error(std::int64_t(1) << 40) ==
        "configs/test.yaml:6: model: its tensor [batch, length, d_ff] would have 5.63e+14 elements, more than "
        "the 2.81e+14 a tensor may have on the whole pod");
  std::mt19937_64 rng(Catch::rngSeed());
  for (int trial = 0; trial < 8; ++trial) {
    const std::int64_t d_ff = 4 * std::uniform_int_distribution<std::int64_t>(std::int64_t(1) << 35,
                                                                              std::int64_t(1) << 38)(rng);
    INFO("d_ff " << d_ff);
    const bool fits = 512.0 * double(d_ff) <= std::ldexp(1.0, 48);
    CHECK((d_ff_error(d_ff) == "(no error)") == fits);
  }
}

TEST_CASE("a size that does not split over its mesh axis is reported at the size") {
  CHECK(error_of(replace(kValid, "  heads: 8\n", "  heads: 6\n")) ==
        "configs/test.yaml:11: model.heads: 6 does not split evenly over mesh axis 'model' of size 4 (layout "
        "rule "
        "heads:model)");
  CHECK(error_of(replace(kValid, "  batch: 16\n", "  batch: 12\n")) ==
        "configs/test.yaml:14: model.batch: 12 does not split evenly over mesh axis 'batch' of size 8 "
        "(layout rule "
        "batch:batch)");
}

TEST_CASE("a mesh that does not match the topology is reported at mesh.shape") {
  CHECK(error_of(replace(kValid, "  shape: batch:8;model:4\n", "  shape: batch:8;model:3\n")) ==
        "configs/test.yaml:5: mesh.shape: batch:8;model:3 has 24 cores but the topology tpu-v2-32 has 32");
  CHECK(
      error_of(replace(replace(kValid, "tpu-v2-32", "tpu-v2-pod"), "batch:8;model:4", "batch:16;model:30")) ==
      "configs/test.yaml:5: mesh.shape: batch:16;model:30 has 480 cores but the topology tpu-v2-pod has 512");
  // mtf::MeshShape parses the mesh: its message, at the key.
  CHECK(error_of(replace(kValid, "batch:8;model:4", "batch:8;batch:4")) ==
        "configs/test.yaml:5: mesh.shape: mesh 'batch:8;batch:4': shape [batch:8, batch:4] names dimension "
        "'batch' twice; dimension names must be unique; expected e.g. 'rows:16;cols:32'");
}

TEST_CASE("layout rules must name model dimensions and mesh axes") {
  const std::string with_layout = replace(kValid, "  shape: batch:8;model:4\n",
                                          "  shape: batch:8;model:4\n  layout: batch:batch;dff:model\n");
  CHECK(
      error_of(with_layout) ==
      "configs/test.yaml:6: mesh.layout: a transformer_lm has no dimension 'dff' (did you mean 'd_ff'?); its "
      "dimensions are batch, length, d_model, d_ff, heads, d_kv, vocab, kv_heads, q_per_kv");
  // mtf::LayoutRules parses and checks the rules against the mesh: its messages, at the key.
  CHECK(error_of(replace(with_layout, "dff:model", "d_ff:modle")) ==
        "configs/test.yaml:6: mesh.layout: layout rule 'd_ff:modle': mesh batch:8;model:4 has no dimension "
        "'modle' (did you mean 'model'?)");
  CHECK(error_of(replace(with_layout, "dff:model", "d_ff:model;d_ff:batch")) ==
        "configs/test.yaml:6: mesh.layout: layout rules split tensor dimension 'd_ff' over both 'model' and "
        "'batch'; a tensor dimension may be split over at most one mesh dimension");
  const auto config = parse_run_config(replace(with_layout, "dff:model", "d_ff:model"), "configs/test.yaml");
  CHECK(config.mesh.layout_text() == "batch:batch;d_ff:model");
}

TEST_CASE("hardware keys resolve topologies and devices and overrides") {
  const auto config = parse_run_config(replace(kValid, "  topology: tpu-v2-32\n",
                                               "  topology: tpu-v2-32\n  device: tpu-v3-core\n  "
                                               "hbm_per_core: 4GiB\n  inter_chip_bandwidth: 10GBps\n"
                                               "  collectives: {batch: ring}\n"),
                                       "configs/test.yaml");
  CHECK(config.hardware.device.name() == "tpu-v3-core");
  CHECK(config.hardware.device.hbm_bytes() == (4ull << 30));
  CHECK(config.hardware.device.peak_flops() == 61.5e12);
  CHECK(config.hardware.topology.inter_chip().bandwidth_Bps() == 10e9);
  CHECK(config.hardware.collective_algorithm_by_axis.at("batch") == "ring");
  CHECK(error_of(replace(kValid, "  topology: tpu-v2-32\n",
                         "  topology: tpu-v2-32\n  collectives: {rows: ring}\n")) ==
        "configs/test.yaml:4: hardware.collectives.rows: unknown key; valid keys are batch, model");
  // Every algorithm name of the registry once, in its order, then auto.
  std::vector<std::string> algorithms;
  for (const auto& row : tpusim::sim::algorithm_table())
    if (std::find(algorithms.begin(), algorithms.end(), row.name) == algorithms.end())
      algorithms.push_back(row.name);
  algorithms.push_back("auto");
  CHECK(error_of(replace(kValid, "  topology: tpu-v2-32\n",
                         "  topology: tpu-v2-32\n  collectives: {model: rnig}\n")) ==
        "configs/test.yaml:4: hardware.collectives.model: 'rnig' is not valid (did you mean 'ring'?); valid "
        "values are " +
            tpusim::join(algorithms));
  CHECK(
      error_of(replace(kValid, "  topology: tpu-v2-32\n", "  topology: tpu-v2-32\n  faults: down:4.0+x\n")) ==
      "configs/test.yaml:4: hardware.faults: fault 'down:4.0+x': chip coordinate x: 4 is out of range: "
      "expected 0 to 3");
  CHECK(error_of(
            replace(kValid, "  topology: tpu-v2-32\n", "  topology: tpu-v2-32\n  faults: slow:0.0+x:0\n")) ==
        "configs/test.yaml:4: hardware.faults: fault 'slow:0.0+x:0': factor '0' must be a number from 0.001 "
        "to 1 (down: for a link that is off)");
  CHECK(error_of(replace(kValid, "tpu-v2-32", "tpu-v9")) ==
        "configs/test.yaml:3: hardware.topology: unknown topology preset 'tpu-v9'; valid presets are " +
            tpusim::join(tpusim::topo::preset_names()) + " (or a spec such as torus:8x8,cores=2)");
  CHECK(
      error_of(replace(kValid, "  topology: tpu-v2-32\n", "  topology: tpu-v2-32\n  hbm_per_core: lots\n")) ==
      "configs/test.yaml:4: hardware.hbm_per_core: 'lots' is not a size: expected a size such as 4096, "
      "64KiB, "
      "64MiB, 1GiB or 1.5GB");
}

TEST_CASE("YAML syntax errors and missing sections are located") {
  CHECK(error_of("model: [1, 2\n").rfind("configs/test.yaml:2: YAML syntax error: ", 0) == 0);
  CHECK(error_of("name: x\n") == "configs/test.yaml:1: missing key 'mesh'");
  CHECK(error_of(replace(kValid, "model:\n", "modle:\n")) ==
        "configs/test.yaml:6: modle: unknown key (did you mean 'model'?); valid keys are name, description, "
        "hardware, mesh, model, training");
  CHECK(error_of(replace(kValid, "  kind: transformer_lm\n", "")) ==
        "configs/test.yaml:6: model: missing key 'model.kind'");
}

TEST_CASE("full numerics of a model too large for this machine is refused") {
  const std::string big = replace(
      replace(replace(kValid, "  d_ff: 256\n", "  d_ff: 262144\n"), "  d_model: 64\n", "  d_model: 1024\n"),
      "  steps: 3\n", "  steps: 3\n  numerics: full\n");
  const std::string error = error_of(big);
  CHECK(error.rfind("configs/test.yaml:19: training.numerics: full numerics of this run would need about ",
                    0) == 0);
  CHECK_NOTHROW(
      parse_run_config(replace(kValid, "  steps: 3\n", "  steps: 3\n  numerics: full\n"), "t.yaml"));
}

TEST_CASE("a key or a section given twice is an error naming both lines") {
  CHECK(error_of(replace(kValid, "  d_ff: 256\n", "  d_ff: 256\n  d_ff: 512\n")) ==
        "configs/test.yaml:11: model.d_ff: given twice, at lines 10 and 11; keep one");
  CHECK(error_of(kValid + "mesh:\n  shape: batch:32\n") ==
        "configs/test.yaml:19: mesh: given twice, at lines 4 and 19; keep one");
  CHECK(error_of(replace(kValid, "  topology: tpu-v2-32\n",
                         "  topology: tpu-v2-32\n  collectives: {model: ring, model: bidir_ring}\n")) ==
        "configs/test.yaml:4: hardware.collectives.model: given twice on line 4; keep one");
}

TEST_CASE("YAML nested too deeply or expanding past its size limit is one clear error") {
  std::string deep = "x: ";
  for (int i = 0; i < 70; ++i) deep += "[";
  for (int i = 0; i < 70; ++i) deep += "]";
  CHECK(error_of(deep) ==
        "configs/test.yaml:1: YAML nested too deeply: more than 64 levels of maps and lists");
  // Past yaml-cpp's own limit the parser stops, with the same message.
  CHECK(error_of("x: " + std::string(5000, '[') + std::string(5000, ']')) ==
        "configs/test.yaml:1: YAML nested too deeply: more than 64 levels of maps and lists");
  // Each alias repeats the one before ten times: 10^7 values from 8 lines.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 8; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 10; ++j) bomb += ", " + prev;
    bomb += "]\n";
  }
  CHECK_THAT(error_of(bomb), Catch::Contains("the YAML has more than 1000000 values (aliases count each time "
                                             "they are used)"));
}

TEST_CASE("implausible device and link figures are refused at their key") {
  auto with = [](const std::string& line) {
    return error_of(replace(kValid, "  topology: tpu-v2-32\n", "  topology: tpu-v2-32\n  " + line + "\n"));
  };
  CHECK(
      with("peak_flops_per_core: 1e-300") ==
      "configs/test.yaml:4: hardware.peak_flops_per_core: '1e-300' is not a plausible FLOP rate: expected 1 "
      "MFLOP/s to 1 EFLOP/s");
  CHECK(with("hbm_bandwidth_per_core: 1e-300") ==
        "configs/test.yaml:4: hardware.hbm_bandwidth_per_core: '1e-300' is not a plausible bandwidth: "
        "expected 1 kB/s to 1 PB/s");
  CHECK(with("inter_chip_bandwidth: 1e-300") ==
        "configs/test.yaml:4: hardware.inter_chip_bandwidth: '1e-300' is not a plausible bandwidth: expected "
        "1 kB/s to 1 PB/s");
  CHECK(
      with("intra_chip_latency: 1e300") ==
      "configs/test.yaml:4: hardware.intra_chip_latency: '1e300' is not a plausible latency: expected 0, or "
      "1 ps to 1 s");
  CHECK(with("hbm_per_core: 1") ==
        "configs/test.yaml:4: hardware.hbm_per_core: '1' is not a plausible memory size: expected 1 KiB to 1 "
        "PiB");
  CHECK(with("op_overhead: 2") ==
        "configs/test.yaml:4: hardware.op_overhead: '2' is not a plausible latency: expected 0, or 1 ps to 1 s");
}

TEST_CASE("the matrix unit, vector unit and fusion keys: defaults, overrides and bad values at their key") {
  const auto with = [](const std::string& lines) {
    return replace(kValid, "  topology: tpu-v2-32\n", "  topology: tpu-v2-32\n" + lines);
  };
  const auto defaults = parse_run_config(kValid, "configs/test.yaml");
  REQUIRE(defaults.hardware.device.matrix_unit().has_value());
  CHECK(defaults.hardware.device.matrix_unit()->side() == 128);
  CHECK(defaults.hardware.device.matrix_unit()->arrays_per_core() == 1);
  CHECK(defaults.hardware.fusion == tpusim::mtf::FusionPolicy::xla);
  const auto changed = parse_run_config(
      with("  matrix_units_per_core: 2\n  peak_flops_per_core: 45T\n  fusion: none\n"), "configs/test.yaml");
  CHECK(changed.hardware.device.matrix_unit()->arrays_per_core() == 2);
  CHECK(changed.hardware.device.clock_Hz() == Approx(45e12 / (2 * 2 * 128 * 128)));
  CHECK(changed.hardware.fusion == tpusim::mtf::FusionPolicy::none);
  CHECK_FALSE(parse_run_config(with("  matrix_unit: peak_rate\n"), "configs/test.yaml")
                  .hardware.device.times_matrix_unit());
  const auto vector = parse_run_config(with("  transcendental_vector_ops: 12.5\n"), "configs/test.yaml");
  CHECK(vector.hardware.device.times_vector_unit());
  CHECK(vector.hardware.device.vector_unit()->transcendental_ops() == 12.5);
  CHECK_FALSE(parse_run_config(with("  vector_unit: peak_rate\n"), "configs/test.yaml")
                  .hardware.device.times_vector_unit());
  CHECK(error_of(with("  transcendental_vector_ops: 0.5\n")) ==
        "configs/test.yaml:4: hardware.transcendental_vector_ops: vector unit: 0.5 vector operations per "
        "transcendental is not plausible: expected 1 to 1000");
  CHECK(error_of(with("  vector_unit: peak_rate\n  transcendental_vector_ops: 2\n")) ==
        "configs/test.yaml:5: hardware.transcendental_vector_ops: the vector unit is off "
        "(hardware.vector_unit: "
        "peak_rate)");
  // The vector unit's ALUs, a user setting where no source gives them (v6e): 128 lanes x 8 sublanes x 4.
  const auto alus = parse_run_config(with("  vector_alus_per_sublane: 4\n"), "configs/test.yaml");
  CHECK(alus.hardware.device.vector_unit()->alus_per_sublane() == 4);
  CHECK(alus.hardware.device.vector_unit()->ops_per_cycle() == 128 * 8 * 4);
  CHECK(error_of(with("  vector_alus_per_sublane: 0\n")) ==
        "configs/test.yaml:4: hardware.vector_alus_per_sublane: 0 is not plausible: expected 1 to 4096");
  CHECK(error_of(with("  vector_unit: peak_rate\n  vector_alus_per_sublane: 2\n")) ==
        "configs/test.yaml:5: hardware.vector_alus_per_sublane: the vector unit is off "
        "(hardware.vector_unit: peak_rate)");
  CHECK(error_of(with("  matrix_unit_side: 4\n")) ==
        "configs/test.yaml:4: hardware.matrix_unit_side: 4 is not plausible: expected 8 to 1024");
  CHECK(error_of(with("  matrix_units_per_core: -1\n")) ==
        "configs/test.yaml:4: hardware.matrix_units_per_core: -1 is not plausible: expected 1 to 64");
  CHECK(error_of(with("  matrix_unit: peak_rate\n  matrix_units_per_core: 2\n")) ==
        "configs/test.yaml:5: hardware.matrix_units_per_core: the matrix unit is off (hardware.matrix_unit: "
        "peak_rate)");
  CHECK(
      error_of(with("  fusion: xl\n")) ==
      "configs/test.yaml:4: hardware.fusion: 'xl' is not valid (did you mean 'xla'?); valid values are xla, "
      "loop, none");
}

TEST_CASE("hardware.pod_allreduce is none unless the config names an allreduce algorithm") {
  const auto with = [](const std::string& line) {
    return replace(kValid, "  topology: tpu-v2-32\n", "  topology: tpu-v2-32\n  " + line + "\n");
  };
  CHECK(parse_run_config(kValid, "configs/test.yaml").hardware.pod_allreduce.empty());
  CHECK(parse_run_config(with("pod_allreduce: none"), "configs/test.yaml").hardware.pod_allreduce.empty());
  CHECK(parse_run_config(with("pod_allreduce: bucket2d"), "configs/test.yaml").hardware.pod_allreduce ==
        "bucket2d");
  CHECK(error_of(with("pod_allreduce: bucket")).rfind(
            "configs/test.yaml:4: hardware.pod_allreduce: 'bucket' is not valid (did you mean 'bucket2d'?)", 0) ==
        0);
}

TEST_CASE("hardware.rematerialization is none unless the config says xla or layers") {
  const auto with = [](const std::string& line) {
    return replace(kValid, "  topology: tpu-v2-32\n", "  topology: tpu-v2-32\n  " + line + "\n");
  };
  CHECK(parse_run_config(kValid, "configs/test.yaml").hardware.rematerialization ==
        tpusim::mtf::RematerializationPolicy::none);
  CHECK(parse_run_config(with("rematerialization: xla"), "configs/test.yaml").hardware.rematerialization ==
        tpusim::mtf::RematerializationPolicy::xla);
  CHECK(parse_run_config(with("rematerialization: layers"), "configs/test.yaml").hardware.rematerialization ==
        tpusim::mtf::RematerializationPolicy::layers);
  CHECK(error_of(with("rematerialization: yes")) ==
        "configs/test.yaml:4: hardware.rematerialization: 'yes' is not valid; valid values are " +
            tpusim::join(tpusim::mtf::rematerialization_policies().names()));
}

TEST_CASE("hardware.overlap is dependencies unless the config says none or concurrent") {
  CHECK(parse_run_config(kValid, "configs/test.yaml").hardware.overlap ==
        tpusim::mtf::OverlapPolicy::dependencies);
  const auto add = [](const std::string& line) {
    return replace(kValid, "  topology: tpu-v2-32\n", "  topology: tpu-v2-32\n  " + line + "\n");
  };
  CHECK(parse_run_config(add("overlap: none"), "configs/test.yaml").hardware.overlap ==
        tpusim::mtf::OverlapPolicy::none);
  CHECK(parse_run_config(add("overlap: concurrent"), "configs/test.yaml").hardware.overlap ==
        tpusim::mtf::OverlapPolicy::concurrent);
  CHECK(
      error_of(add("overlap: nonee")) ==
      "configs/test.yaml:4: hardware.overlap: 'nonee' is not valid (did you mean 'none'?); valid values are "
      "dependencies, none, concurrent");
}

TEST_CASE("the per-op overhead is a user setting that keeps the device's other figures") {
  const auto config = parse_run_config(
      replace(kValid, "  topology: tpu-v2-32\n", "  topology: tpu-v2-32\n  op_overhead: 2.5us\n"),
      "configs/test.yaml");
  const auto& device = config.hardware.device;
  CHECK(device.op_overhead_s() == Approx(2.5e-6));
  CHECK(device.peak_flops() == 22.5e12);
  CHECK(device.hbm_bandwidth_Bps() == 350e9);
  CHECK(parse_run_config(kValid, "configs/test.yaml").hardware.device.op_overhead_s() == 0);
}

TEST_CASE("the vector memory is a user setting, absent unless the config gives it") {
  CHECK_FALSE(parse_run_config(kValid, "configs/test.yaml").hardware.device.vector_memory_bytes());
  const auto with = [](const std::string& value) {
    return replace(kValid, "  topology: tpu-v2-32\n",
                   "  topology: tpu-v2-32\n  vector_memory: " + value + "\n");
  };
  const auto config = parse_run_config(with("16MiB"), "configs/test.yaml");
  CHECK(config.hardware.device.vector_memory_bytes() == (16ull << 20));
  CHECK(config.hardware.device.peak_flops() == 22.5e12);
  CHECK(error_of(with("512")) ==
        "configs/test.yaml:4: hardware.vector_memory: '512' is not a plausible memory size: expected 1 KiB "
        "to 1 PiB");
  CHECK(error_of(with("nonee")) ==
        "configs/test.yaml:4: hardware.vector_memory: 'nonee' is neither none nor a size (did you mean "
        "'none'?): expected none, or a size such as 16MiB");
  CHECK(error_of(with("lots")) ==
        "configs/test.yaml:4: hardware.vector_memory: 'lots' is neither none nor a size: expected none, or a "
        "size such as 16MiB");
}

TEST_CASE("mesh sizes are never cut to 32 bits or multiplied past an int") {
  CHECK(error_of(replace(kValid, "batch:8;model:4", "a:4294967304")) ==
        "configs/test.yaml:5: mesh.shape: mesh 'a:4294967304': mesh a:4294967304 has 4294967304 processors; "
        "at most 16777216 are supported; expected e.g. 'rows:16;cols:32'");
  CHECK(error_of(replace(kValid, "batch:8;model:4", "a:65536;b:65536;c:65536")) ==
        "configs/test.yaml:5: mesh.shape: mesh 'a:65536;b:65536;c:65536': mesh a:65536;b:65536;c:65536 has "
        "281474976710656 processors; at most 16777216 are supported; expected e.g. 'rows:16;cols:32'");
  CHECK(
      error_of(replace(kValid, "batch:8;model:4", "batch:8;model:four")) ==
      "configs/test.yaml:5: mesh.shape: mesh 'batch:8;model:four': shape 'batch:8;model:four': 'model:four' "
      "is not name:size (e.g. 'batch:8,io:16'); expected e.g. 'rows:16;cols:32'");
  CHECK(error_of(replace(kValid, "batch:8;model:4", "''")) ==
        "configs/test.yaml:5: mesh.shape: the mesh shape is empty; expected name:size pairs such as "
        "batch:16;model:32");
}

TEST_CASE("more steps than a run may have are refused at the key") {
  CHECK(error_of(replace(kValid, "  steps: 3\n", "  steps: 100001\n")) ==
        "configs/test.yaml:18: training.steps: 100001 steps is more than the 100000 a run may have");
}

TEST_CASE("a pod too large to simulate is refused at hardware.topology") {
  CHECK_THAT(
      error_of(replace(kValid, "tpu-v2-32", "torus:256x256,cores=64")),
      Catch::StartsWith("configs/test.yaml:3: hardware.topology: topology 'torus:256x256,cores=64' has "
                        "4194304 cores on 65536 chips; simulating it would need about 12.6 GiB"));
}
