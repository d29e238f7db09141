#pragma once
// Shared argument checks of the op builders.
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"

namespace tpusim::mtf {

// The graph all `tensors` belong to; InputError naming the op if they are empty handles or mix graphs.
Graph& same_graph(const std::vector<Tensor>& tensors, const std::string& op_name);

}  // namespace tpusim::mtf
