// The vector memory (DeviceModel::matmul_hbm_bytes, config hardware.vector_memory): a matmul whose operands
// do not fit reads its streamed operand again for each further part of the stationary one, held in half the
// memory. Expected bytes are worked out by hand.
#include <catch2/catch.hpp>

#include "mesh_tf/device_model.hpp"
#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;

namespace {
constexpr double MiB = 1024.0 * 1024.0;
}

TEST_CASE("vector memory: a matmul's HBM bytes by hand") {
  const DeviceModel plain = DeviceModel::tpu_v2_core();
  CHECK_FALSE(plain.vector_memory_bytes().has_value());
  CHECK(plain.matmul_hbm_bytes(32 * MiB, 32 * MiB, 8 * MiB) == 72 * MiB);  // through HBM once

  const DeviceModel device = plain.with_vector_memory(16ull << 20);        // parts of 8 MiB
  CHECK(device.matmul_hbm_bytes(6 * MiB, 10 * MiB, 1 * MiB) == 17 * MiB);  // both fit
  // 32 MiB stationary in 4 parts: the other 32 MiB read 3 more times.
  CHECK(device.matmul_hbm_bytes(32 * MiB, 32 * MiB, 8 * MiB) == (72 + 96) * MiB);
  // 8 MiB and 32 MiB do not fit together, but 8 MiB is one part: nothing read again.
  CHECK(device.matmul_hbm_bytes(8 * MiB, 32 * MiB, 4 * MiB) == 44 * MiB);
  // 12 MiB stationary (2 parts) reads 40 MiB once more; 40 MiB stationary (5 parts) would read 12 MiB four
  // more times: 40 < 48.
  CHECK(device.matmul_hbm_bytes(12 * MiB, 40 * MiB, 0) == (52 + 40) * MiB);
  CHECK(device.matmul_hbm_bytes(40 * MiB, 12 * MiB, 0) == (52 + 40) * MiB);
  // A straggler keeps it; a capacity outside the plausible range is an input error.
  CHECK(device.slowed(2).vector_memory_bytes() == device.vector_memory_bytes());
  CHECK_THROWS_AS(plain.with_vector_memory(512), tpusim::InputError);
}

TEST_CASE("vector memory: a lowered matmul re-reads its operand and becomes HBM-bound") {
  // One core, bf16: [256 x 65536] x [65536 x 256], 32 MiB each, into 128 KiB. At the peak rate it takes
  // 2 * 256 * 256 * 65536 / 22.5e12 = 0.38 ms; its 64 MiB through HBM once 0.19 ms.
  Graph g(1);
  const Dimension rows("rows", 256), inner("inner", 65536), cols("cols", 256);
  const Tensor a = g.input("a", {rows, inner}, DType::bfloat16);
  const Tensor b = g.input("b", {inner, cols}, DType::bfloat16);
  einsum({a, b}, Shape{rows, cols}, "product");
  for (const bool limited : {false, true}) {
    ExecutionOptions options;
    options.numerics = false;
    options.device = DeviceModel::tpu_v2_core();
    if (limited) options.device = options.device.with_vector_memory(16ull << 20);
    Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
    executor.run();
    const auto& op = executor.counters().ops.back();
    REQUIRE(op.name == "product");
    INFO("limited " << limited);
    // With 16 MiB: 4 parts of the stationary operand, the other read 3 more times.
    const double bytes = (limited ? 64 * MiB + 96 * MiB : 64 * MiB) + 128 * 1024;
    CHECK(op.hbm_bytes_per_core == bytes);
    const double clock_Hz = 22.5e12 / (2 * 128 * 128);
    // Tiles: 512 x 2 of one operand, 256 rows each, plus one fill and drain of 256 cycles.
    const double matrix_s = (1024 * 256 + 256) / clock_Hz;
    CHECK(op.time_s == Approx(std::max(matrix_s, bytes / 350e9)).epsilon(1e-12));
    CHECK((op.time_s > matrix_s * 1.2) == limited);
  }
}
