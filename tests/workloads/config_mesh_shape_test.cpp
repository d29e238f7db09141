// Meshes that follow the topology: a '*' size takes the cores the others leave, and from_mapping (or a left
// out mesh.shape beside an explicit mesh.mapping) sizes each mesh axis by its physical axes.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "mesh_tf/mesh_mapping.hpp"
#include "tests/topologies/support/input_error_of.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/resolved_config.hpp"

using namespace tpusim::workloads;

namespace {

// An MLP config on `topology` with the given mesh lines (each "  key: value\n"); line 3 is the first mesh
// key.
std::string config_on(const std::string& topology, const std::string& mesh_lines) {
  return "hardware: {topology: \"" + topology + "\"}\n" +  // 1
         "mesh:\n" +                                       // 2
         mesh_lines +                                      // 3...
         "model: {kind: mlp, layers: 1, d_model: 8, d_ff: 1024, batch: 1024}\n";
}

RunConfig parse(const std::string& yaml) { return parse_run_config(yaml, "configs/m.yaml"); }

std::string error_of(const std::string& yaml) {
  return tpusim::test_support::input_error_of([&] { parse(yaml); });
}

}  // namespace

TEST_CASE("mesh shape: one size '*' takes the cores the others leave") {
  // lm-s2's model axis of 4 on the three v2 slices: 32, 128 and 512 cores.
  CHECK(parse(config_on("tpu-v2-32", "  shape: batch:*;model:4\n")).mesh.shape_text() == "batch:8;model:4");
  CHECK(parse(config_on("tpu-v2-128", "  shape: batch:*;model:4\n")).mesh.shape_text() == "batch:32;model:4");
  CHECK(parse(config_on("tpu-v2-pod", "  shape: batch:*;model:4\n")).mesh.shape_text() ==
        "batch:128;model:4");
  CHECK(parse(config_on("tpu-v2-pod", "  shape: batch:16;model:*\n")).mesh.shape_text() ==
        "batch:16;model:32");
  CHECK(parse(config_on("ring-8", "  shape: batch:*\n")).mesh.shape_text() == "batch:8");
  // The resolved config shows the sizes.
  const RunConfig config = parse(config_on("tpu-v2-128", "  shape: batch:*;model:4\n"));
  CHECK(resolved_config(config)["mesh"]["shape"] == "batch:32;model:4");

  std::mt19937 random(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int kx = 1 << (random() % 4), ky = 1 << (random() % 4), cores_per_chip = 1 + random() % 2;
    const int cores = kx * ky * cores_per_chip;
    const int model = 1 << (random() % 5);
    const std::string topology =
        "torus:" + std::to_string(kx) + "x" + std::to_string(ky) + ",cores=" + std::to_string(cores_per_chip);
    const std::string yaml = config_on(topology, "  shape: batch:*;model:" + std::to_string(model) + "\n");
    INFO(topology << " model " << model);
    if (cores % model == 0) {
      CHECK(parse(yaml).mesh.shape_text() ==
            "batch:" + std::to_string(cores / model) + ";model:" + std::to_string(model));
    } else {
      CHECK(error_of(yaml) == "configs/m.yaml:3: mesh.shape: mesh 'batch:*;model:" + std::to_string(model) +
                                  "': the " + std::to_string(cores) + " cores of " + topology +
                                  " are not a multiple of " + std::to_string(model) +
                                  " (the other sizes), so '*' has no whole size");
    }
  }
}

TEST_CASE("mesh shape: '*' twice, or sizes '*' cannot fill, are errors at mesh.shape") {
  CHECK(error_of(config_on("tpu-v2-32", "  shape: batch:*;model:*\n")) ==
        "configs/m.yaml:3: mesh.shape: mesh 'batch:*;model:*': only one size may be '*' (the cores the other "
        "sizes leave); 2 are");
  CHECK(error_of(config_on("tpu-v2-32", "  shape: batch:*;model:64\n")) ==
        "configs/m.yaml:3: mesh.shape: mesh 'batch:*;model:64': the 32 cores of tpu-v2-32 are not a multiple "
        "of 64 (the other sizes), so '*' has no whole size");
  CHECK_THAT(error_of(config_on("tpu-v2-32", "  shape: batch:*;model:x\n")),
             Catch::StartsWith("configs/m.yaml:3: mesh.shape: mesh 'model:x': "));
}

TEST_CASE("mesh shape: from_mapping sizes each mesh axis by the physical axes the mapping gives it") {
  for (const std::string mapping : {"model=core+x;batch=y", "batch=y;model=core+x"}) {
    INFO(mapping);
    // Written, and left out: the same mesh.
    for (const std::string shape : {"  shape: from_mapping\n", ""}) {
      const RunConfig v2_32 = parse(config_on("tpu-v2-32", shape + "  mapping: " + mapping + "\n"));
      CHECK(v2_32.mesh.shape_text() == "batch:4;model:8");
      const RunConfig pod = parse(config_on("tpu-v2-pod", shape + "  mapping: " + mapping + "\n"));
      CHECK(pod.mesh.shape_text() == "batch:16;model:32");
      CHECK(resolved_config(pod)["mesh"]["shape"] == "batch:16;model:32");
      CHECK(tpusim::mtf::MeshMapping(pod.mesh.shape, pod.hardware.topology, pod.mesh.mapping).note() ==
            "model = core+x, batch = y");
    }
  }
  // Axes ordered as ranks number them: the mesh axis on the slowest physical axis first.
  CHECK(parse(config_on("tpu-v2-pod", "  mapping: a=x;b=core+y\n")).mesh.shape_text() == "b:32;a:16");
  CHECK(parse(config_on("torus:4x4x4", "  mapping: a=x+y+z\n")).mesh.shape_text() == "a:64");
  CHECK(parse(config_on("torus:2x4x8,cores=2", "  mapping: m=core;d=z;p=x+y\n")).mesh.shape_text() ==
        "d:8;p:8;m:2");

  std::mt19937 random(11);
  for (int trial = 0; trial < 30; ++trial) {
    const int kx = 1 << (random() % 4), ky = 1 << (random() % 4), cores_per_chip = 1 + random() % 2;
    const std::string topology =
        "torus:" + std::to_string(kx) + "x" + std::to_string(ky) + ",cores=" + std::to_string(cores_per_chip);
    INFO(topology);
    const RunConfig config = parse(config_on(topology, "  mapping: model=core+x;batch=y\n"));
    CHECK(config.mesh.shape_text() ==
          "batch:" + std::to_string(ky) + ";model:" + std::to_string(cores_per_chip * kx));
    CHECK(config.mesh.num_cores() == config.hardware.topology.num_cores());
  }
}

TEST_CASE("mesh shape: from_mapping needs a mapping that assigns every physical axis") {
  CHECK(
      error_of(config_on("tpu-v2-32", "  shape: from_mapping\n")) ==
      "configs/m.yaml:3: mesh.shape: from_mapping takes each mesh axis's size from the physical axes "
      "mesh.mapping gives it (such as model=core+x;batch=y), but the mapping is left to its default, rings");
  CHECK(error_of(config_on("tpu-v2-32", "  shape: from_mapping\n  mapping: linear\n")) ==
        "configs/m.yaml:3: mesh.shape: from_mapping takes each mesh axis's size from the physical axes "
        "mesh.mapping gives it (such as model=core+x;batch=y), but the mapping is linear");
  // A 3D torus has a z the mapping leaves out: the mesh would not cover the pod.
  CHECK(
      error_of(config_on("torus:2x2x2,cores=2", "  mapping: model=core+x;batch=y\n")) ==
      "configs/m.yaml:3: mesh.mapping: mesh mapping 'model=core+x;batch=y' gives physical axis z (size 2) of "
      "torus:2x2x2,cores=2 to no mesh axis, so a mesh taken from it would not cover the pod; name z in one "
      "of its rules");
  CHECK_THAT(error_of(config_on("tpu-v2-32", "  shape: from_mapping\n  mapping: model=core+w;batch=y\n")),
             Catch::StartsWith("configs/m.yaml:4: mesh.mapping: mesh mapping 'model=core+w;batch=y': rule "
                               "'model=core+w': "));
  // Without an explicit mapping, mesh.shape is as required as it was.
  CHECK(error_of(config_on("tpu-v2-32", "  layout: batch:batch\n")) ==
        "configs/m.yaml:2: mesh: missing key 'mesh.shape'");
  CHECK(error_of(
            "hardware: {topology: ring-8}\nmodel: {kind: mlp, layers: 1, d_model: 8, d_ff: 8, batch: 8}\n") ==
        "configs/m.yaml:1: missing key 'mesh'");
}
