// Sweeps: the product order, every point resolved (and its problems located in the sweep file) before
// anything runs, and each point's results equal to a direct run of the same config.
#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "tests/topologies/support/input_error_of.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/sweep/sweep_catalog.hpp"
#include "workloads/sweep/sweep_report.hpp"
#include "workloads/sweep/sweep_run.hpp"
#include "workloads/sweep/study.hpp"
#include "workloads/sweep/sweep_spec.hpp"

using tpusim::InputError;
using namespace tpusim::workloads;

namespace {

std::string error_of(const std::string& yaml) {
  return tpusim::test_support::input_error_of([&] { parse_sweep(yaml, "sweeps/s.yaml"); });
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("sweep: the points are the product of the lists, the first key varying slowest") {
  const Sweep sweep = parse_sweep(
      "base: tiny-mlp\n"
      "vary:\n"
      "  mesh.shape: [batch:4;model:2, batch:8;model:1]\n"
      "  training.steps: [1, 2, 3]\n",
      "sweeps/order.yaml");
  CHECK(sweep.name == "order");
  CHECK(sweep.output_dir == "results/order");
  CHECK(sweep.base_source == "workloads/presets/tiny-mlp.yaml");
  REQUIRE(sweep.axes.size() == 2);
  CHECK(sweep.axes[0].key == "mesh.shape");
  CHECK(sweep.axes[1].values == std::vector<std::string>{"1", "2", "3"});
  REQUIRE(sweep.points.size() == 6);
  const std::vector<std::pair<std::string, int>> expected = {{"batch:4;model:2", 1}, {"batch:4;model:2", 2},
                                                             {"batch:4;model:2", 3}, {"batch:8;model:1", 1},
                                                             {"batch:8;model:1", 2}, {"batch:8;model:1", 3}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& point = sweep.points[i];
    CHECK(point.index == static_cast<int>(i));
    CHECK(point.config.mesh.shape_text() == expected[i].first);
    CHECK(point.config.training.steps == expected[i].second);
    // Everything not varied comes from the base.
    CHECK(point.config.model.d_ff == 64);
    CHECK(point.config.hardware.topology.name() == "ring-8");
  }
  CHECK(sweep.points[4].describe(sweep.axes) == "mesh.shape=batch:8;model:1, training.steps=2");
  // The default layout follows the mesh: no model axis of size > 1 needed, but the rule is kept.
  CHECK(sweep.points[0].config.mesh.layout_text() == "batch:batch;d_ff:model");
}

TEST_CASE("sweep: a whole section and keys missing from the base can be varied") {
  const Sweep sweep = parse_sweep(
      "name: sections\n"
      "base: tiny-mlp\n"
      "vary:\n"
      "  hardware.collectives.batch: [ring, bidir_ring]\n"
      "  model:\n"
      "    - {kind: mlp, layers: 1, d_model: 8, d_ff: 16, batch: 8}\n"
      "    - {kind: mlp, layers: 3, d_model: 8, d_ff: 32, batch: 8}\n"
      "output: out/sections\n",
      "sweeps/x.yaml");
  REQUIRE(sweep.points.size() == 4);
  CHECK(sweep.name == "sections");
  CHECK(sweep.output_dir == "out/sections");
  CHECK(sweep.points[1].config.hardware.collective_algorithm_by_axis.at("batch") == "ring");
  CHECK(sweep.points[1].config.model.layers == 3);
  CHECK(sweep.points[2].config.hardware.collective_algorithm_by_axis.at("batch") == "bidir_ring");
  CHECK(sweep.points[2].config.model.d_ff == 16);
  CHECK(sweep.axes[1].values[0] == "{kind: mlp, layers: 1, d_model: 8, d_ff: 16, batch: 8}");
}

TEST_CASE("sweep: problems of the sweep file itself are located at their key") {
  CHECK(error_of("base: tiny-mlp\nvary: {mesh.shape: [batch:8;model:1]}\nbsae: x\n") ==
        "sweeps/s.yaml:3: bsae: unknown key (did you mean 'base'?); valid keys are name, description, kind, "
        "base, set, vary, zip, points, exclude, output");
  CHECK(error_of("base: tiny-mlp\nvary:\n  mesh.shape: []\n") ==
        "sweeps/s.yaml:3: vary.mesh.shape: the list of values is empty");
  CHECK(error_of("base: tiny-mlp\nvary:\n  mesh.shape: batch:8;model:1\n") ==
        "sweeps/s.yaml:3: vary.mesh.shape: expected a list of values, such as [a, b]");
  CHECK_THAT(error_of("base: tiny-mlp\nvary:\n  training.steps: [1]\n  mesh.shap: [batch:8;model:1]\n"),
             Catch::StartsWith("sweeps/s.yaml:4: vary.mesh.shap: 'mesh.shap' is not a config key (did you "
                               "mean 'mesh.shape'?); valid keys are name, description, hardware, "));
  CHECK(error_of("base: tiny-mlp\nvary:\n  model: [{kind: mlp}]\n  model.d_ff: [8]\n") ==
        "sweeps/s.yaml:4: vary.model.d_ff: overlaps vary.model: vary a section or keys inside it, not both");
  CHECK(error_of("base: tiny-mlp\nvary:\n  model.d_ff: [8, 16, 8]\n") ==
        "sweeps/s.yaml:3: vary.model.d_ff[2]: 8 repeats vary.model.d_ff[0]");
  CHECK_THAT(
      error_of("base: tiny-mpl\nvary: {model.d_ff: [8]}\n"),
      Catch::StartsWith("sweeps/s.yaml:1: base: unknown preset 'tiny-mpl' (did you mean 'tiny-mlp'?)"));
  CHECK(error_of("vary: {model.d_ff: [8]}\n") == "sweeps/s.yaml:1: missing key 'base'");
  CHECK(error_of("base: configs/absent.yaml\nvary: {model.d_ff: [8]}\n") ==
        "sweeps/s.yaml:1: base: sweeps/configs/absent.yaml: cannot read the config file: No such file or "
        "directory");
}

TEST_CASE("sweep: an invalid point is located at the sweep value that makes it invalid") {
  // The value itself is wrong: the parser's problem, at the value's line in the sweep file.
  CHECK(error_of("# the 4.9B LM over meshes\n"
                 "name: meshes\n"
                 "base: lm-s5\n"
                 "vary:\n"
                 "  mesh.shape:\n"
                 "    - batch:32;model:16\n"
                 "    - batch:16;model:30\n") ==
        "sweeps/s.yaml:7: vary.mesh.shape[1]: batch:16;model:30 has 480 cores but the topology tpu-v2-pod "
        "has 512");
  CHECK(error_of("base: tiny-mlp\nvary:\n  model.d_ff: [64,\n    63]\n") ==
        "sweeps/s.yaml:4: vary.model.d_ff[1]: 63 does not split evenly over mesh axis 'model' of size 2 "
        "(layout "
        "rule d_ff:model)");
  CHECK_THAT(
      error_of("base: tiny-mlp\nvary:\n  model.heads: [4]\n"),
      Catch::StartsWith("sweeps/s.yaml:3: vary.model.heads[0]: model.heads is not a key here; valid keys are "
                        "kind, layers, d_model, d_ff, batch, activation_dtype"));
  CHECK_THAT(
      error_of("base: tiny-mlp\nvary:\n  hardware.collectives.batch: [ring, rnig]\n"),
      Catch::StartsWith("sweeps/s.yaml:3: vary.hardware.collectives.batch[1]: 'rnig' is not valid (did "
                        "you mean 'ring'?)"));
  // The value breaks a key of the base: both locations.
  CHECK(
      error_of("base: tiny-lm\nvary:\n  mesh.shape: [batch:2;model:4, batch:1;model:8]\n") ==
      "sweeps/s.yaml:3: vary.mesh.shape[1]: workloads/presets/tiny-lm.yaml:14: model.heads: 4 does not split "
      "evenly over mesh axis 'model' of size 8 (layout rule heads:model)");
  // Two values fine alone but not together: located at the last one, naming the point.
  CHECK(error_of("base: tiny-lm\nvary:\n  mesh.shape: [batch:2;model:4, batch:8;model:1]\n"
                 "  mesh.layout: [batch:batch, heads:batch]\n") ==
        "sweeps/s.yaml:4: vary.mesh.layout[1]: in point mesh.shape=batch:8;model:1, mesh.layout=heads:batch: "
        "workloads/presets/tiny-lm.yaml:14: model.heads: 4 does not split evenly over mesh axis 'batch' of "
        "size 8 "
        "(layout rule heads:batch)");
}

TEST_CASE("sweep: the shipped sweeps resolve") {
  const auto names = sweep_preset_names();
  REQUIRE(names.size() >= 1);
  // Every kind of study (training sweeps and collective studies) loads through the one dispatcher.
  for (const auto& name : names) {
    INFO(name);
    const auto study = load_study_preset(name);
    CHECK(study->name() == name);
    CHECK(study->size() > 0);
  }
  const Sweep mesh = load_sweep_preset("lm-s5-mesh");
  REQUIRE(mesh.points.size() == 5);
  CHECK(mesh.points[2].config.mesh.shape_text() == "batch:16;model:32");
  CHECK(mesh.points[2].config.hardware.topology.num_cores() == 512);
}

TEST_CASE("sweep: a training sweep may name its kind") {
  const auto study = tpusim::workloads::parse_study(
      "kind: training\nbase: tiny-mlp\nvary:\n  training.steps: [1, 2]\n", "sweeps/k.yaml");
  CHECK(study->kind() == "training");
  CHECK(study->size() == 2);
  // parse_sweep reached directly (not through the dispatcher) still refuses another kind.
  CHECK(error_of("kind: collectives\nbase: tiny-mlp\nvary:\n  training.steps: [1]\n") ==
        "sweeps/s.yaml:1: kind: a training sweep has kind 'training', not 'collectives'");
}

TEST_CASE("sweep: each point's results equal a direct run of the same config") {
  const Sweep sweep = parse_sweep(
      "base: tiny-mlp\n"
      "vary:\n"
      "  mesh.shape: [batch:4;model:2, batch:8;model:1]\n"
      "  training.steps: [2]\n",
      "sweeps/two.yaml");
  const auto results = run_sweep(sweep);
  REQUIRE(results.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string shape = i == 0 ? "batch:4;model:2" : "batch:8;model:1";
    const std::string text =
        replace(replace(preset_text("tiny-mlp"), "shape: batch:4;model:2", "shape: " + shape), "steps: 12",
                "steps: 2");
    const PointResult direct = run_point(parse_run_config(text, "direct.yaml"));
    const PointResult& swept = results[i];
    INFO(shape << ": " << swept.error);
    REQUIRE(swept.error.empty());
    CHECK(swept.step_time_s > 0);
    CHECK(swept.step_time_s == direct.step_time_s);
    CHECK(swept.compute_s == direct.compute_s);
    CHECK(swept.communication_s == direct.communication_s);
    CHECK(swept.exposed_communication_s == direct.exposed_communication_s);
    CHECK(swept.mfu == direct.mfu);
    CHECK(swept.memory_per_core_bytes == direct.memory_per_core_bytes);
    CHECK(swept.collective_calls == direct.collective_calls);
    CHECK(swept.fits);
    CHECK(swept.wall_s > 0);
  }
  // Different meshes, different programs: the model-parallel mesh needs more collectives.
  CHECK(results[0].collective_calls > results[1].collective_calls);

  std::ostringstream csv;
  write_sweep_csv(csv, sweep, results);
  std::istringstream lines(csv.str());
  std::string header, row;
  std::getline(lines, header);
  CHECK(
      header.rfind("point,mesh.shape,training.steps,topology,cores,mesh_shape,layout,global_batch,parameters,"
                   "step_time_s,",
                   0) == 0);
  CHECK_THAT(header, Catch::EndsWith(",error,scaling,speedup,efficiency"));
  std::getline(lines, row);
  CHECK(row.rfind("0,batch:4;model:2,2,ring-8,8,batch:4;model:2,batch:batch;d_ff:model,32,", 0) == 0);
  const auto json = sweep_json(sweep, results, 1.0);
  CHECK(json["runs"].size() == 2);
  CHECK(json["runs"][1]["step_time"]["step_time_s"].get<double>() == results[1].step_time_s);
  CHECK(json["sweep"]["vary"][0]["key"] == "mesh.shape");
}

TEST_CASE("sweep: a point over its HBM is a row with fits false, not a failure") {
  const Sweep sweep = parse_sweep(
      "base: tiny-mlp\n"
      "vary:\n"
      "  hardware.hbm_per_core: [1GiB, 1KiB]\n"
      "  training.numerics: [timing]\n",
      "sweeps/hbm.yaml");
  const auto results = run_sweep(sweep);
  REQUIRE(results.size() == 2);
  REQUIRE(results[0].error.empty());
  REQUIRE(results[1].error.empty());
  CHECK(results[0].fits);
  CHECK_FALSE(results[1].fits);
  CHECK(results[1].hbm_per_core_bytes == 1024);
  CHECK(results[0].step_time_s == results[1].step_time_s);
}

TEST_CASE("sweep: a layout only the engine rejects is a row with its error, located in the sweep file") {
  const Sweep sweep = parse_sweep(
      "base: tiny-lm\n"
      "vary:\n"
      "  training.numerics: [timing]\n"
      "  mesh.layout: [batch:batch;d_ff:batch]\n",
      "sweeps/layout.yaml");
  const auto results = run_sweep(sweep);
  REQUIRE(results.size() == 1);
  CHECK(results[0].input_error);
  CHECK_THAT(results[0].error,
             Catch::StartsWith("sweeps/layout.yaml:4: vary.mesh.layout[0]: the model cannot be "
                               "laid out on mesh batch:2;model:4: "));
  // The row keeps the header's columns: the measured ones empty, the error in the last of a point's own, then
  // the scaling columns (empty: one point is no scaling study).
  std::ostringstream csv;
  write_sweep_csv(csv, sweep, results);
  std::istringstream lines(csv.str());
  std::string header, row;
  REQUIRE(std::getline(lines, header));
  REQUIRE(std::getline(lines, row));
  const auto error_at = row.find("sweeps/layout.yaml:4:");
  REQUIRE(error_at != std::string::npos);
  const std::string before_error = row.substr(0, error_at);
  CHECK(std::count(before_error.begin(), before_error.end(), ',') ==
        std::count(header.begin(), header.end(), ',') - 3);
  CHECK_THAT(row, Catch::EndsWith(",,,"));
}

TEST_CASE("sweep: a problem inside a varied section is located at its own line in the sweep file") {
  // Points hold copies of the sweep's values; the messages must still quote the lines written.
  CHECK(error_of("base: tiny-mlp\n"
                 "vary:\n"
                 "  model:\n"
                 "    - {kind: mlp, layers: 2, d_model: 16, d_ff: 64, batch: 32}\n"
                 "    - kind: mlp\n"
                 "      layers: 2\n"
                 "      d_model: 16\n"
                 "      d_ff: 63\n"
                 "      batch: 32\n") ==
        "sweeps/s.yaml:8: vary.model[1].d_ff: 63 does not split evenly over mesh axis 'model' of size 2 "
        "(layout "
        "rule d_ff:model)");
}

TEST_CASE("sweep: a key given twice in the sweep file names both lines") {
  CHECK(error_of("base: tiny-mlp\nvary:\n  model.d_ff: [64]\n  model.d_ff: [128]\n") ==
        "sweeps/s.yaml:4: vary.model.d_ff: given twice, at lines 3 and 4; keep one");
  CHECK(error_of("base: tiny-mlp\nvary:\n  model: [{kind: mlp, kind: mlp}]\n") ==
        "sweeps/s.yaml:3: vary.model[0].kind: given twice on line 3; keep one");
}

TEST_CASE("sweep: unet-split crosses four image sizes with three zipped ways of splitting them") {
  const Sweep sweep = load_sweep_preset("unet-split");
  REQUIRE(sweep.points.size() == 12);
  const std::vector<std::string> layouts = {"batch:batch", "batch:batch;h:rows", "h:rows;w:cols"};
  for (std::size_t i = 0; i < 12; ++i) {
    const RunConfig& config = sweep.points[i].config;
    INFO(i);
    CHECK(config.model.image_size == (std::int64_t(512) << (i / 3)));
    CHECK(config.mesh.layout_text() == layouts[i % 3]);
    CHECK(config.model.batch == (i % 3 == 0 ? 512 : i % 3 == 1 ? 32 : 8));
    CHECK(config.mesh.num_cores() == 512);
  }
}

TEST_CASE("sweep: the U-Net's rows split and tile split both run on the pod, the tiles in less memory") {
  const Sweep sweep = parse_sweep(
      "base: unet-pod\n"
      "vary:\n"
      "  model.image_size: [512]\n"
      "  mesh.shape: [batch:32;rows:16, rows:16;cols:32]\n"
      "  mesh.layout: [batch:batch;h:rows, h:rows;w:cols]\n"
      "  model.batch: [32, 8]\n"
      "zip:\n"
      "  - [mesh.shape, mesh.layout, model.batch]\n",
      "sweeps/unet.yaml");
  const auto results = run_sweep(sweep);
  REQUIRE(results.size() == 2);
  for (const auto& result : results) {
    INFO(result.error);
    REQUIRE(result.error.empty());
    CHECK(result.fits);
    CHECK(result.step_time_s > 0);
  }
  CHECK(results[1].memory_per_core_bytes < results[0].memory_per_core_bytes);
  CHECK(results[1].collective_calls > results[0].collective_calls);  // halos along two mesh axes
}
