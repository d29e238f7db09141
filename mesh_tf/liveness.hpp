#pragma once
// Which ops of a graph do useful work in a step: those whose output reaches, through the ops reading it, a
// variable update (assign) or one of the tensors the step returns. The rest is dead work the lowering would
// still run; autodiff and the optimizers build none, and tests assert it.
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"

namespace tpusim::mtf {

// live[op id] is true when the op's output is used, transitively, by an assign or one of `outputs`.
std::vector<bool> live_ops(const Graph& graph, const std::vector<Tensor>& outputs);

// Names of the dead ops of `phase` (empty when every op of that phase is live), for test messages.
std::vector<std::string> dead_op_names(const Graph& graph, const std::vector<Tensor>& outputs, Phase phase);

}  // namespace tpusim::mtf
