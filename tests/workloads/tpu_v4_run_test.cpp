// TPU v4 presets run training steps: the cube preset with the v4 core, the core chosen from the topology
// when the config names none, and the twisted slice, on rings the mapping keeps physical.
#include <catch2/catch.hpp>

#include "topologies/presets.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/sweep/sweep_run.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

TEST_CASE("lm-s5-v4 runs a training step on the TPU v4 cube") {
  const RunConfig config = load_preset("lm-s5-v4");
  CHECK(config.hardware.topology.name() == "tpu-v4-cube");
  CHECK(config.hardware.device.name() == "tpu-v4-core");
  // Half a v4 chip of the Cloud TPU page: 275 TFLOP/s, 1200 GB/s and 32 GiB per chip of two cores.
  CHECK(config.hardware.device.peak_flops() == 137.5e12);
  CHECK(config.hardware.device.hbm_bandwidth_Bps() == 600e9);
  CHECK(config.hardware.device.hbm_bytes() == 16ull << 30);
  const auto result = run_point(config);
  REQUIRE(result.error.empty());
  CHECK(result.step_time_s > result.compute_s);
  CHECK(result.mfu > 0);
  CHECK(result.mfu < 1);
}

TEST_CASE("a v4 topology without a device takes the v4 core, and the twisted slice runs a step") {
  CHECK(mtf::DeviceModel::for_topology("tpu-v4-4x4x8-twisted").name() == "tpu-v4-core");
  CHECK(mtf::DeviceModel::for_topology("tpu-v3-pod").name() == "tpu-v3-core");
  CHECK(mtf::DeviceModel::for_topology("torus:4x4x4").name() == "tpu-v2-core");
  RunConfig config = load_preset("lm-s5-v4");
  config.hardware.topology = topo::preset("tpu-v4-4x4x8-twisted");
  config.mesh.shape = mtf::MeshShape::parse("batch:8;model:32");
  config.model.batch = 256;
  const auto twisted = run_point(config);
  INFO(twisted.error);
  REQUIRE(twisted.error.empty());
  CHECK(twisted.step_time_s > 0);
  // The rings mapping orders model's axes x+y+core (a physical ring on the twisted slice); the untwisted
  // slice's core+x+y closes each model ring over a twisted wraparound, three hops, and its step is slower.
  config.mesh.mapping = mtf::MappingSpec::parse("model=core+x+y;batch=z");
  const auto across_twist = run_point(config);
  REQUIRE(across_twist.error.empty());
  CHECK(twisted.step_time_s < across_twist.step_time_s);
}
