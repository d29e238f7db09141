#pragma once
// Reverse-mode automatic differentiation over the graph. Gradient ops are appended to the same graph with
// Phase::backward, so they are lowered like any op: einsums of dy with the other inputs plus the allreduces
// the layout dictates (lazily summed: contributions to one gradient are added before one allreduce). Only
// tensors on a path from some x to some y get gradient ops, so every backward op feeds a returned gradient:
// none of the backward work is dead (no d/d(one-hot) of an embedding lookup, no gradient of a data input).
#include <vector>

#include "mesh_tf/graph.hpp"

namespace tpusim::mtf {

// d(sum of ys[i] * grad_ys[i]) / d(xs[j]); grad_ys[i] must have ys[i]'s shape. A tensor in xs that ys do not
// depend on gets a zero gradient. Throws InputError if the tensors belong to different graphs.
std::vector<Tensor> gradients(const std::vector<Tensor>& ys, const std::vector<Tensor>& grad_ys,
                              const std::vector<Tensor>& xs);
// Gradients of a scalar loss (shape []); the seed d loss / d loss = 1 is a backward-phase constant.
std::vector<Tensor> gradients(const Tensor& loss, const std::vector<Tensor>& xs);

}  // namespace tpusim::mtf
