// A dropout mask's cost against a hand computation: ThreeFry-2x32's bits, the uniform conversion and the
// select, 65.5 vector operations per element (mesh_tf/random_bits.hpp), on tpu-v2-core's vector unit.
#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"
#include "mesh_tf/random_bits.hpp"

using namespace tpusim::mtf;

TEST_CASE("random mask: ThreeFry's operation count from prng.cc's structure") {
  // 2 initial key adds, 20 rounds of add + rotate (shl, shr, or) + xor, 5 key injections of 3 adds.
  CHECK(kThreeFryOpsPerPair == 117);
  CHECK(kThreeFryOpsPerValue == 58.5);
  CHECK(kRandomMaskVectorOps == 65.5);  // + shift, or, sub, mul, add + compare, select
}

TEST_CASE("random mask: its step's vector time on tpu-v2-core by hand") {
  // 1M fp32 mask elements on one core: 68.7M vector operations (65.5 each) at 2048 per cycle of the 686.65
  // MHz clock (22.5 TFLOP/s over 2 x 128 x 128 MACs), 1.406e12 per second: 48.84 us, above the 1 MiB written
  // (one byte per element, a PRED: 3.0 us at 350 GB/s).
  constexpr double kElements = 1 << 20;
  const double clock_Hz = 22.5e12 / (2.0 * 128 * 128);
  const double expected_s = kElements * 65.5 / (2048 * clock_Hz);
  CHECK(expected_s == Approx(48.84e-6).epsilon(1e-3));
  Graph g(1);
  const Tensor x = g.input("x", {Dimension("a", 1024), Dimension("b", 1024)});
  const Tensor y = dropout(x, 0.9, 7, "drop");
  ExecutionOptions options;
  options.numerics = false;
  options.outputs = {y};
  options.fusion = FusionPolicy::none;  // the mask's own step, not the fusion it joins
  Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
  executor.run();
  int masks = 0;
  for (const auto& op : executor.counters().ops) {
    if (op.kind != OpKind::random_mask) continue;
    ++masks;
    CHECK(op.time_s == Approx(expected_s).epsilon(1e-12));
    CHECK(op.flops_per_core == kElements);  // the FLOP counters see one per element, as before
    CHECK(op.hbm_bytes_per_core == kElements);
  }
  CHECK(masks == 1);
}

TEST_CASE("random mask: keep probability 1 builds no mask") {
  Graph g(1);
  const Tensor x = g.input("x", {Dimension("a", 8)});
  CHECK(dropout(x, 1.0, 7, "drop").id() == x.id());
}
