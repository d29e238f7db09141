#pragma once
// The two-layer MLP the weight-sharding tests train data-parallel on an 8-core ring: w1 [d_in:16, hidden:32]
// and w2 [hidden:32, d_out:16], 512 fp32 elements (2048 bytes) each, both sharded along hidden (their largest
// dim; 8 divides it), no bias, a mean squared error loss over a batch of 64.
#include "mesh_tf/graph.hpp"

namespace tpusim::mtf::testing {

struct ShardingMlp {
  Tensor x, target, loss;
};

// Built into `g`, after any Graph::shard_variables (which applies to the variables made after it).
inline ShardingMlp build_sharding_mlp(Graph& g) {
  const Dimension batch("batch", 64), d_in("d_in", 16), hidden("hidden", 32), d_out("d_out", 16);
  const Tensor x = g.input("x", {batch, d_in});
  const Tensor target = g.input("target", {batch, d_out});
  const Tensor w1 = g.variable("w1", {d_in, hidden}, Initializer::normal(0.25));
  const Tensor w2 = g.variable("w2", {hidden, d_out}, Initializer::normal(0.18));
  const Tensor h = relu(einsum({x, w1}, Shape{batch, hidden}, "h"));
  const Tensor y = einsum({h, w2}, Shape{batch, d_out}, "y");
  return {x, target, reduce_mean(square(sub(y, target)), Shape{}, "loss")};
}

}  // namespace tpusim::mtf::testing
