// The TPU v5e, v5p and v6e devices against their sources, worked by hand: each is a whole chip (one
// TensorCore, or v5p's megacore of two), with the Cloud pages' peak bf16 rate and HBM
// (https://docs.cloud.google.com/tpu/docs/v5e, /v5p, /v6e), their matrix units, and the clocks these imply
// next to the 1.5 and 1.75 GHz of Austin et al., "How to Scale Your Model" (2025).
#include <catch2/catch.hpp>

#include "mesh_tf/device_model.hpp"

using namespace tpusim::mtf;

TEST_CASE("tpu-v5e-core: 197 TFLOP/s, 16 GB at 819 GB/s, four 128 x 128 arrays at 1.5 GHz") {
  const DeviceModel device = DeviceModel::preset("tpu-v5e-core");
  CHECK(device.peak_flops() == 197e12);
  CHECK(device.hbm_bytes() == 16000000000ull);
  CHECK(device.hbm_bandwidth_Bps() == 819e9);
  REQUIRE(device.matrix_unit());
  CHECK(device.matrix_unit()->side() == 128);
  CHECK(device.matrix_unit()->arrays_per_core() == 4);
  // 197e12 / (2 x 4 x 128 x 128) = 1.50299e9 Hz.
  CHECK(device.clock_Hz() == Approx(1.50299e9).epsilon(1e-5));
  REQUIRE(device.vector_unit());
  CHECK(device.vector_unit()->ops_per_cycle() == 128 * 8 * 4);
}

TEST_CASE("tpu-v5p-core: the megacore, 459 TFLOP/s, 95 GiB at 2765 GB/s, 2 x 4 arrays at 1.75 GHz") {
  const DeviceModel device = DeviceModel::preset("tpu-v5p-core");
  CHECK(device.peak_flops() == 459e12);
  CHECK(device.hbm_bytes() == 95ull * 1024 * 1024 * 1024);
  CHECK(device.hbm_bandwidth_Bps() == 2765e9);
  CHECK(device.matrix_unit()->side() == 128);
  CHECK(device.matrix_unit()->arrays_per_core() == 8);
  // 459e12 / (2 x 8 x 128 x 128) = 1.75095e9 Hz.
  CHECK(device.clock_Hz() == Approx(1.75095e9).epsilon(1e-5));
  // Two TensorCores' vector units of 128 x 8 x 4: Austin et al.'s 8 * 128 * 4 * 2 operations per chip cycle.
  CHECK(device.vector_unit()->ops_per_cycle() == 8 * 128 * 4 * 2);
}

TEST_CASE("tpu-v6e-core: 918 TFLOP/s, 32 GB at 1638 GB/s, two 256 x 256 arrays") {
  const DeviceModel device = DeviceModel::preset("tpu-v6e-core");
  CHECK(device.peak_flops() == 918e12);
  CHECK(device.hbm_bytes() == 32000000000ull);
  CHECK(device.hbm_bandwidth_Bps() == 1638e9);
  CHECK(device.matrix_unit()->side() == 256);
  CHECK(device.matrix_unit()->arrays_per_core() == 2);
  // No source gives the clock: 918e12 / (2 x 2 x 256 x 256) = 3.50189e9 Hz follows from the two arrays.
  CHECK(device.clock_Hz() == Approx(3.50189e9).epsilon(1e-5));
  CHECK(device.vector_unit()->ops_per_cycle() == 128 * 8 * 4);
}

TEST_CASE("a 128-wide matmul fills a v5e array but is padded to a v6e array's 256") {
  // [128 x 128] x [128 x 128]: one tile. v5e: 128 rows + a fill and drain of 2 x 128 = 384 cycles; v6e: the
  // tile padded to 256, held at least 256 cycles, + 2 x 256 = 768 cycles. Both compute-bound: 3 x 32 KiB of
  // bf16 operands take 120 ns of v5e's HBM and 60 ns of v6e's.
  const MatmulSizes sizes{1, 128, 128, 128};
  const double flops = 2.0 * 128 * 128 * 128, bytes = 3 * 128 * 128 * 2;
  const auto v5e = DeviceModel::preset("tpu-v5e-core").matmul_time(sizes, flops, bytes);
  CHECK(v5e.bound == ComputeBound::matrix_unit);
  CHECK(v5e.time_s == Approx(384 / (197e12 / (2.0 * 4 * 128 * 128))).epsilon(1e-12));
  const auto v6e = DeviceModel::preset("tpu-v6e-core").matmul_time(sizes, flops, bytes);
  CHECK(v6e.bound == ComputeBound::matrix_unit);
  CHECK(v6e.time_s == Approx(768 / (918e12 / (2.0 * 2 * 256 * 256))).epsilon(1e-12));
}

TEST_CASE("a topology preset of each new generation implies its device") {
  CHECK(DeviceModel::for_topology("tpu-v5e-256").name() == "tpu-v5e-core");
  CHECK(DeviceModel::for_topology("tpu-v5e-16").name() == "tpu-v5e-core");
  CHECK(DeviceModel::for_topology("tpu-v5p-cube").name() == "tpu-v5p-core");
  CHECK(DeviceModel::for_topology("tpu-v5p-pod").name() == "tpu-v5p-core");
  CHECK(DeviceModel::for_topology("tpu-v6e-256").name() == "tpu-v6e-core");
}
