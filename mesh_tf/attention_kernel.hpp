#pragma once
// A fused attention kernel: FlashAttention (Dao et al. 2022, arXiv 2205.14135; FlashAttention-2, Dao 2023,
// arXiv 2307.08691) as the Pallas TPU kernels run it (jax.experimental.pallas.ops.tpu: flash_attention and
// splash_attention, which MaxText runs with `attention: flash`): the logits, the softmax and the context of
// one attention computed block by block in on-chip memory, never written to HBM.
//
// A model builds the attention from the ordinary ops inside an AttentionKernelScope, so its numbers are
// exactly the plain graph's; what changes is how the steps are timed and held (fusion.hpp, buffer_liveness):
//   - forward: one kernel reads q, k and v and writes the context and the softmax's row statistics (its
//     reductions' results, a value per query). Its grid runs over blocks of block_q queries and, inside,
//     blocks of block_kv keys, loading each key block's k and v (BlockSpecs), so k and v are read once per
//     query block that reaches them;
//   - backward: one kernel computes the gradients of q, k and v. The logits and softmax weights have no
//     buffer: it computes them again from q, k and the row statistics (FlashAttention-2's recomputation, one
//     more logits matmul). Its key-block pass (dk, dv) reads q and the context's gradient once per key block,
//     its query-block pass (dq) k and v once per query block;
//   - causal: blocks wholly above the diagonal are skipped (the kernels' block mask), so both kernels do
//     computed_blocks() / (query_blocks() x key_blocks()) of the dense work; a block the diagonal crosses is
//     computed whole.
// XLA fuses nothing into a custom kernel: what the model computes around it (q's scaling, rotary embeddings)
// is written to HBM and read by it.
#include <cstdint>
#include <string>

#include "mesh_tf/dimension.hpp"

namespace tpusim::mtf {

class Graph;

class AttentionKernel {
 public:
  // InputError when a block size is below 1.
  AttentionKernel(std::string name, Dimension query_length, Dimension key_length, bool causal,
                  std::int64_t block_q, std::int64_t block_kv);

  const std::string& name() const { return name_; }
  const Dimension& query_length() const { return query_length_; }  // the queries' length dim (unsplit)
  const Dimension& key_length() const { return key_length_; }      // the keys' and values' (unsplit)
  bool causal() const { return causal_; }
  std::int64_t block_q() const { return block_q_; }
  std::int64_t block_kv() const { return block_kv_; }

  std::int64_t query_blocks() const;  // ceil(query length / block_q)
  std::int64_t key_blocks() const;    // ceil(key length / block_kv)
  // Blocks the kernels compute: all of them, or under a causal mask those holding a key position at or
  // before a query position of the block (key j <= query i: the mask's lower triangle).
  std::int64_t computed_blocks() const;
  double computed_fraction() const;  // computed_blocks / (query_blocks * key_blocks)

 private:
  std::string name_;
  Dimension query_length_, key_length_;
  bool causal_;
  std::int64_t block_q_, block_kv_;
};

// The forward ops a model builds while a scope lives are one attention kernel's (OpNode::attention_kernel);
// autodiff puts the gradient ops of those ops in the same kernel's backward pass. Scopes do not nest.
class AttentionKernelScope {
 public:
  AttentionKernelScope(Graph& graph, AttentionKernel kernel);
  ~AttentionKernelScope();
  AttentionKernelScope(const AttentionKernelScope&) = delete;
  AttentionKernelScope& operator=(const AttentionKernelScope&) = delete;

 private:
  Graph& graph_;
};

}  // namespace tpusim::mtf
