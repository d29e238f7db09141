#pragma once
// Splits the FLOPs the engine counted into matmul FLOPs (the contractions models/model_formulas.hpp gives in
// closed form) and other work (elementwise, reductions, optimizer). Every op the models lower is live
// (autodiff builds no gradient that nothing reads; tests/workloads/liveness_test.cpp checks each model kind),
// so the two parts add up to all the work counted.
#include "mesh_tf/counters.hpp"
#include "mesh_tf/graph.hpp"

namespace tpusim::workloads {

// A two-input einsum that contracts a dimension the inputs share and where each input has a dimension the
// other lacks: a matrix product, as opposed to an elementwise product with a reduction (gradients of mul). A
// convolution, transposed convolution or filter gradient is one too.
bool is_matmul(const mtf::Graph& graph, const mtf::OpNode& op);

struct FlopBreakdown {
  double matmul_flops_per_core = 0;
  double other_flops_per_core = 0;
};
FlopBreakdown flop_breakdown(const mtf::Graph& graph, const mtf::Counters& counters);

}  // namespace tpusim::workloads
