// The matrix unit's timing against hand computations and a tile-by-tile count written here, and its use
// by the lowering: which contractions XLA leaves on it, and what a small dimension costs.
#include "mesh_tf/matrix_unit.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "mesh_tf/device_model.hpp"
#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;

namespace {

// Every tile of the stationary operand in turn, given to the array that is free first, each busy for its
// streamed rows padded to the granule or for the side while the next tile shifts in; then the pipeline's
// fill and drain. The faster choice of stationary operand.
double cycles_by_tiles(const MatmulSizes& s, int side, int arrays, int granule) {
  auto one_way = [&](std::int64_t m, std::int64_t n) {
    std::vector<double> busy(arrays, 0.0);
    for (std::int64_t b = 0; b < s.batch; ++b) {
      for (std::int64_t k0 = 0; k0 < s.k; k0 += side) {
        for (std::int64_t n0 = 0; n0 < n; n0 += side) {
          double rows = 0;
          while (rows < m) rows += granule;
          *std::min_element(busy.begin(), busy.end()) += std::max(rows, 1.0 * side);
        }
      }
    }
    return *std::max_element(busy.begin(), busy.end()) + 2.0 * side;
  };
  return std::min(one_way(s.m, s.n), one_way(s.n, s.m));
}

}  // namespace

TEST_CASE("matrix unit: cycles of chosen matmuls by hand") {
  const MatrixUnit v2(128, 1, 8), v3(128, 2, 8);
  // Full tiles: 8 x 8 tiles of 4096 rows, plus 256 cycles of fill and drain; exactly the peak otherwise.
  CHECK(v2.cycles({1, 4096, 1024, 1024}) == 64 * 4096 + 256);
  CHECK(v3.cycles({1, 4096, 1024, 1024}) == 32 * 4096 + 256);
  // A batch of 16 rows: 64 tiles each held 128 cycles for the next one's shift (or, the other way round, 8
  // tiles of 1024 rows): 8448 cycles for work the peak does in 1024.
  CHECK(v2.cycles({1, 16, 1024, 1024}) == 8448);
  // A per-core slice of 8 heads, attention logits over d_kv 64: k pads to 128, half of each tile idle.
  // 8 x 1 x 2 tiles of 256 rows + 256 = 4352 cycles, for 2048 cycles of work.
  CHECK(v2.cycles({8, 256, 256, 64}) == 4352);
  // Rows pad to 8: 200 rows stream as 200, 201 as 208.
  CHECK(v2.cycles({1, 200, 128, 128}) == 200 + 256);
  CHECK(v2.cycles({1, 201, 128, 128}) == 208 + 256);
  // The stationary operand is the one that pads less: [130, 128] x [128, 256] holds the [128, 256] operand
  // (2 tiles of 130 rows padded to 136: 528 cycles), not the [128, 130] one (2 tiles, the second 2 columns
  // wide, of 256 rows each: 768).
  CHECK(v2.cycles({1, 130, 256, 128}) == 2 * 136 + 256);
}

TEST_CASE("matrix unit: random matmuls against a tile-by-tile count, never faster than the peak") {
  std::mt19937 rng(20261201);
  std::uniform_int_distribution<int> size(1, 700), batch(1, 6), arrays(1, 4), side_pick(0, 2);
  for (int trial = 0; trial < 300; ++trial) {
    const int side = std::array<int, 3>{8, 32, 128}[side_pick(rng)];
    const MatrixUnit unit(side, arrays(rng), 8);
    const MatmulSizes s{batch(rng), size(rng), size(rng), size(rng)};
    INFO(trial << ": " << s.batch << " x " << s.m << " x " << s.n << " x " << s.k << " on " << side << " x "
               << unit.arrays_per_core());
    CHECK(unit.cycles(s) == cycles_by_tiles(s, side, unit.arrays_per_core(), 8));
    CHECK(unit.cycles(s) >= 1.0 * s.batch * s.m * s.n * s.k / unit.macs_per_cycle());
  }
}

TEST_CASE("matrix unit: which contractions XLA leaves on it") {
  CHECK(runs_on_matrix_unit({4, 16, 16, 16}));
  CHECK_FALSE(runs_on_matrix_unit({4096, 1, 1, 1024}));  // a dot product per example: multiply and reduce
  CHECK_FALSE(runs_on_matrix_unit({1, 1024, 1, 1024}));  // matrix times vector: multiply and reduce
  CHECK_FALSE(runs_on_matrix_unit({1, 1024, 1024, 1}));  // outer product, nothing contracted: a multiply
}

TEST_CASE("matrix unit: bad shapes are input errors") {
  CHECK_THROWS_AS(MatrixUnit(4, 1, 8), tpusim::InputError);
  CHECK_THROWS_AS(MatrixUnit(128, 0, 8), tpusim::InputError);
  CHECK_THROWS_AS(MatrixUnit(128, 1, 129), tpusim::InputError);
}

TEST_CASE("matrix unit: the presets' clocks and the time of a matmul on a device") {
  // The clocks the peak rates imply, next to the published 700, 940 and 1050 MHz.
  CHECK(DeviceModel::tpu_v2_core().clock_Hz() == Approx(686.65e6).epsilon(1e-4));
  CHECK(DeviceModel::tpu_v3_core().clock_Hz() == Approx(938.4e6).epsilon(1e-4));
  CHECK(DeviceModel::tpu_v4_core().clock_Hz() == Approx(1049.0e6).epsilon(1e-4));
  const DeviceModel v2 = DeviceModel::tpu_v2_core();
  const MatmulSizes small_rows{1, 16, 1024, 1024};
  const double flops = 2.0 * 16 * 1024 * 1024;
  const auto time = v2.matmul_time(small_rows, flops, 1e3);
  CHECK(time.bound == ComputeBound::matrix_unit);
  CHECK(time.time_s == Approx(8448 / (22.5e12 / (2 * 128 * 128))).epsilon(1e-12));
  CHECK(time.time_s > 8 * flops / v2.peak_flops());  // slower than its FLOP count suggests
  // Extra work beside the matmul (an operand's own sum) on the vector unit, 2048 operations a cycle; HBM
  // still bounds when larger.
  CHECK(v2.matmul_time(small_rows, flops + 1e6, 1e3).time_s ==
        Approx(time.time_s + 1e6 / (2048 * 22.5e12 / (2 * 128 * 128))).epsilon(1e-12));
  CHECK(v2.matmul_time(small_rows, flops, 1e9).bound == ComputeBound::hbm_bandwidth);
  // With the matrix unit's timing off, the matmul at the peak rate; a contraction XLA strength-reduces is
  // the vector unit's work (op_time); with both units off, the plain roofline.
  const DeviceModel peak = v2.with_matrix_unit_timing(false);
  CHECK(peak.matmul_time(small_rows, flops, 1e3).time_s == Approx(flops / 22.5e12).epsilon(1e-15));
  CHECK(peak.matmul_time(small_rows, flops, 1e3).bound == ComputeBound::flop_rate);
  CHECK(v2.matmul_time({4096, 1, 1, 1024}, 8e6, 1e3).time_s == v2.op_time(8e6, 1e3).time_s);
  CHECK(v2.op_time(8e6, 1e3).bound == ComputeBound::vector_unit);
  const DeviceModel roofline = peak.with_vector_unit_timing(false);
  CHECK(roofline.matmul_time(small_rows, flops, 1e3).time_s == Approx(flops / 22.5e12).epsilon(1e-15));
  CHECK(roofline.op_time(flops, 1e3).bound == ComputeBound::flop_rate);
}

TEST_CASE("matrix unit: lowered einsums are timed on it, and a straggler's clock is slowed") {
  // One core, bf16: attention logits of 8 heads over d_kv 64 (on the matrix unit), and a per-example dot
  // product (multiply and reduce: the roofline).
  Graph g(1);
  const Dimension heads("heads", 8), length("length", 256), memory("memory", 256), kv("d_kv", 64);
  const Dimension batch("batch", 4096), d("d_model", 1024);
  const Tensor q = g.input("q", {heads, length, kv}, DType::bfloat16);
  const Tensor k = g.input("k", {heads, memory, kv}, DType::bfloat16);
  einsum({q, k}, Shape{heads, length, memory}, "logits");
  const Tensor a = g.input("a", {batch, d}, DType::bfloat16);
  const Tensor b = g.input("b", {batch, d}, DType::bfloat16);
  einsum({a, b}, Shape{batch}, "dot");
  for (const double slowdown : {1.0, 2.0}) {
    ExecutionOptions options;
    options.numerics = false;
    options.device = DeviceModel::tpu_v2_core().slowed(slowdown);
    Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
    executor.run();
    const double clock_Hz = 22.5e12 / (2 * 128 * 128) / slowdown;
    int seen = 0;
    for (const auto& op : executor.counters().ops) {
      INFO(op.name);
      const double memory_s = op.hbm_bytes_per_core / (350e9 / slowdown);
      if (op.name == "logits") {
        ++seen;
        CHECK(op.time_s == Approx(std::max(4352 / clock_Hz, memory_s)).epsilon(1e-12));
        CHECK(op.time_s > op.flops_per_core / options.device.peak_flops() * 2);
      }
      if (op.name == "dot") {  // a multiply and a reduce on the vector unit
        ++seen;
        CHECK(op.time_s == Approx(std::max(op.flops_per_core / (2048 * clock_Hz), memory_s)).epsilon(1e-12));
      }
    }
    CHECK(seen == 2);
  }
}
