#pragma once
// Splits the FLOPs the engine counted into matmul FLOPs (the contractions model_formulas.hpp gives in closed
// form), other work (elementwise, reductions, optimizer) and dead work: ops whose result reaches neither a
// variable update nor the loss. Autodiff builds the gradient of every input of an op and drops the ones no
// variable needs (e.g. d/d(one-hot) of the embedding lookup); the lowering still runs them, so they cost time
// without being part of the model.
#include <vector>

#include "mesh_tf/counters.hpp"
#include "mesh_tf/graph.hpp"

namespace tpusim::workloads {

// live[op] is true when the op's output is used, transitively, by an assign or one of `fetches`.
std::vector<bool> live_ops(const mtf::Graph& graph, const std::vector<mtf::Tensor>& fetches);

// A two-input einsum that contracts a dimension the inputs share and where each input has a dimension the
// other lacks: a matrix product, as opposed to an elementwise product with a reduction (gradients of mul).
bool is_matmul(const mtf::Graph& graph, const mtf::OpNode& op);

struct FlopBreakdown {
  double matmul_flops_per_core = 0;  // live matmuls
  double other_flops_per_core = 0;   // live, everything else
  double dead_flops_per_core = 0;    // ops whose results are never used
};
FlopBreakdown flop_breakdown(const mtf::Graph& graph, const mtf::Counters& counters,
                             const std::vector<mtf::Tensor>& fetches);

}  // namespace tpusim::workloads
