// The fused attention kernel (attention_kernel.hpp): its causal block count against a loop over positions,
// and the time and bytes of its two passes against hand computations on one core of a plain roofline device
// (every FLOP at the peak rate), compute-bound and memory-bound.
#include "mesh_tf/attention_kernel.hpp"

#include <catch2/catch.hpp>
#include <random>

#include "mesh_tf/autodiff.hpp"
#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;

namespace {

// Blocks holding at least one (query i, key j) pair with j <= i, found by looking at every pair.
std::int64_t blocks_by_pairs(std::int64_t length, std::int64_t block_q, std::int64_t block_kv) {
  const std::int64_t nq = (length + block_q - 1) / block_q, nk = (length + block_kv - 1) / block_kv;
  std::int64_t blocks = 0;
  for (std::int64_t bq = 0; bq < nq; ++bq) {
    for (std::int64_t bk = 0; bk < nk; ++bk) {
      bool any = false;
      for (std::int64_t i = bq * block_q; i < std::min(length, (bq + 1) * block_q) && !any; ++i)
        for (std::int64_t j = bk * block_kv; j < std::min(length, (bk + 1) * block_kv) && !any; ++j)
          any = j <= i;
      blocks += any ? 1 : 0;
    }
  }
  return blocks;
}

AttentionKernel kernel(std::int64_t length, bool causal, std::int64_t block_q, std::int64_t block_kv) {
  return AttentionKernel("attention", Dimension("l", length), Dimension("m", length), causal, block_q, block_kv);
}

}  // namespace

TEST_CASE("a causal kernel computes the blocks that hold an unmasked pair, and only those") {
  // MaxText's Llama 3.1 8B on v6e: 8192 positions in blocks of 2048, 1 + 2 + 3 + 4 of 16 blocks.
  CHECK(kernel(8192, true, 2048, 2048).computed_blocks() == 10);
  CHECK(kernel(8192, true, 2048, 2048).computed_fraction() == 10.0 / 16);
  CHECK(kernel(8192, false, 2048, 2048).computed_blocks() == 16);
  CHECK(kernel(100, true, 1000, 1000).computed_blocks() == 1);  // a block larger than the sequence
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t length = 1 + rng() % 300, bq = 1 + rng() % 70, bk = 1 + rng() % 70;
    INFO("length " << length << " blocks " << bq << " x " << bk);
    CHECK(kernel(length, true, bq, bk).computed_blocks() == blocks_by_pairs(length, bq, bk));
  }
  CHECK_THROWS_AS(kernel(64, true, 0, 16), tpusim::InputError);
}

namespace {

// One causal attention [b, h, l, m] over fp32 q, k and v of d_kv `kv` per head, on one core, with the loss
// sum(context^2) so that a gradient flows back into it: its forward and backward kernel, with and without the
// kernel.
struct AttentionRun {
  double forward_s = 0, backward_s = 0;            // the kernel passes' time
  double forward_flops = 0, backward_matmul_flops = 0;  // their members' executed FLOPs
  double forward_bytes = 0, backward_bytes = 0;
  std::uint64_t peak_bytes = 0;
};

constexpr std::int64_t B = 2, H = 4, L = 256, K = 64, kBlock = 64;

AttentionRun run_attention(const DeviceModel& device, bool fused) {
  Graph g(1);
  const Dimension b("b", B), h("h", H), l("l", L), m("m", L), k("k", K);
  const Tensor q = g.variable("q", {b, l, h, k}, Initializer::normal(0.1));
  const Tensor keys = g.variable("keys", {b, m, h, k}, Initializer::normal(0.1));
  const Tensor values = g.variable("values", {b, m, h, k}, Initializer::normal(0.1));
  Tensor context;
  {
    std::optional<AttentionKernelScope> scope;
    if (fused) scope.emplace(g, AttentionKernel("attention", l, m, true, kBlock, kBlock));
    const Tensor logits = einsum({q, keys}, Shape{b, h, l, m}, "logits");
    const Tensor masked = add(logits, causal_mask(g, l, m, "mask"), "masked");
    const Tensor weights = softmax(masked, "m", "weights");
    context = einsum({weights, values}, Shape{b, l, h, k}, "context");
  }
  const auto grads = gradients(reduce_sum(square(context), Shape{}), {q, keys, values});
  ExecutionOptions options;
  options.numerics = false;
  options.device = device;
  options.outputs = grads;
  Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
  executor.run();
  AttentionRun run;
  for (const auto& op : executor.counters().ops) {
    const OpNode& node = g.op(op.op);
    if (node.attention_kernel < 0) continue;
    const bool backward = node.phase == Phase::backward;
    (backward ? run.backward_s : run.forward_s) += op.time_s;
    (backward ? run.backward_bytes : run.forward_bytes) += op.hbm_bytes_per_core;
    if (!backward) run.forward_flops += op.flops_per_core;
    if (backward && node.kind == OpKind::einsum && node.inputs.size() == 2) run.backward_matmul_flops += op.flops_per_core;
  }
  run.peak_bytes = executor.live_memory().peak_bytes;
  return run;
}

const double kMatmul_flops = 2.0 * B * H * L * L * K;  // one of the logits and context matmuls
const double kLogits = double(B * H * L * L);
const double kFraction = 10.0 / 16;  // 256 positions in blocks of 64: 1 + 2 + 3 + 4 of 16

}  // namespace

TEST_CASE("compute-bound, the kernel's passes take their blocks' matmul time and elementwise work overlaps it") {
  const double peak = 1e12;
  const DeviceModel device("hand", peak, 1e15, 1ull << 40, 0);
  const AttentionRun run = run_attention(device, true);
  // Forward: the two matmuls, the mask made on the core (a compare and a select per pair), its add, and the
  // softmax's max, subtraction, exp, sum and division, each over every pair, in the computed blocks only.
  const double forward = 2 * kMatmul_flops + 2.0 * L * L + 6 * kLogits;
  CHECK(run.forward_flops == Approx(kFraction * forward).epsilon(1e-12));
  // The elementwise work runs beside the matmuls inside the kernel (a few FLOPs per pair against 2K per
  // pair per matmul), so the pass takes the matmuls' time.
  CHECK(run.forward_s == Approx(kFraction * 2 * kMatmul_flops / peak).epsilon(1e-12));
  // Backward: the gradients' four matmuls (dv = p^T do, dp = do v^T, dq = ds k, dk = ds^T q), and the
  // forward's logits matmul computed again (the row statistics it stored are read, not recomputed).
  CHECK(run.backward_matmul_flops == Approx(kFraction * 4 * kMatmul_flops).epsilon(1e-12));
  CHECK(run.backward_s == Approx(kFraction * 5 * kMatmul_flops / peak).epsilon(1e-12));
}

TEST_CASE("memory-bound, the kernel reads q, k and v once per block loop and writes no logits") {
  const double bandwidth = 1e9;
  const DeviceModel device("hand", 1e18, bandwidth, 1ull << 40, 0);
  const AttentionRun run = run_attention(device, true);
  const double tensor = 4.0 * B * L * H * K;  // q, k, v, the context and each gradient, fp32
  const double stats = 4.0 * B * H * L;       // the softmax's max and sum, a value per query
  const double key_reads = 10.0 / 4;          // computed blocks over key blocks
  const double query_reads = 10.0 / 4;        // computed blocks over query blocks
  // Forward: q once, k and v per query block's loop, the context and the two statistics written.
  CHECK(run.forward_bytes == Approx(tensor + 2 * tensor * key_reads + tensor + 2 * stats).epsilon(1e-12));
  CHECK(run.forward_s == Approx(run.forward_bytes / bandwidth).epsilon(1e-12));
  // Backward: q, the context's gradient and the statistics per key block's loop, k and v per query block's;
  // the gradients of q, k and v written.
  const double backward = (2 * tensor + 2 * stats) * query_reads + 2 * tensor * key_reads + 3 * tensor;
  CHECK(run.backward_bytes == Approx(backward).epsilon(1e-12));
  CHECK(run.backward_s == Approx(backward / bandwidth).epsilon(1e-12));
}

TEST_CASE("the fused kernel holds no logits: the plain attention's peak exceeds it by at least their size") {
  const DeviceModel device("hand", 1e12, 1e12, 1ull << 40, 0);
  const AttentionRun fused = run_attention(device, true), plain = run_attention(device, false);
  CHECK(plain.peak_bytes >= fused.peak_bytes + static_cast<std::uint64_t>(4 * kLogits));
}
