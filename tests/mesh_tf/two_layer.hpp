#pragma once
// The two-layer example of the Mesh-TensorFlow paper (mesh_tf/README.md, The paper's figures): x[batch, io],
// w[io, hidden], v[hidden, io]; h = relu(x.w); y = h.v; a training step's backward pass from a given dy.
#include <memory>

#include <vector>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"

namespace tpusim::mtf::testing {

struct TwoLayer {
  std::unique_ptr<Graph> graph;
  Tensor x, dy, w, v, y;
  std::vector<Tensor> grads;  // dw, dv, dx
};

TwoLayer two_layer_example(std::int64_t batch, std::int64_t io, std::int64_t hidden);

// Seeded normal values for x and dy, fed to `executor`, and w as it holds it.
struct TwoLayerValues {
  std::vector<float> x, dy, w;
};
TwoLayerValues feed_random(Executor& executor, const TwoLayer& t, unsigned seed);

// d loss / dv[h, o] = sum over b of relu(x.w)[b, h] * dy[b, o], a plain loop in double precision, [h * io + o].
std::vector<double> reference_dv(const TwoLayerValues& values, std::int64_t batch, std::int64_t io,
                                 std::int64_t hidden);

}  // namespace tpusim::mtf::testing
