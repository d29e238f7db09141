#pragma once
// The two-layer example of the Mesh-TensorFlow paper (shared reference mesh_tf.md): x[batch, io], w[io,
// hidden], v[hidden, io]; h = relu(x.w); y = h.v; a training step's backward pass from a given dy.
#include <memory>

#include "mesh_tf/graph.hpp"

namespace tpusim::mtf::testing {

struct TwoLayer {
  std::unique_ptr<Graph> graph;
  Tensor x, dy, w, v, y;
  std::vector<Tensor> grads;  // dw, dv, dx
};

TwoLayer two_layer_example(std::int64_t batch, std::int64_t io, std::int64_t hidden);

}  // namespace tpusim::mtf::testing
