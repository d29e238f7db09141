#include "tests/mesh_tf/two_layer.hpp"

#include "mesh_tf/autodiff.hpp"

namespace tpusim::mtf::testing {

TwoLayer two_layer_example(std::int64_t batch_size, std::int64_t io_size, std::int64_t hidden_size) {
  TwoLayer t;
  t.graph = std::make_unique<Graph>(3);
  Graph& g = *t.graph;
  const Dimension batch("batch", batch_size), io("io", io_size), hidden("hidden", hidden_size);
  t.x = g.input("x", {batch, io});
  t.dy = g.input("dy", {batch, io});
  t.w = g.variable("w", {io, hidden}, Initializer::normal(0.1f));
  t.v = g.variable("v", {hidden, io}, Initializer::normal(0.1f));
  const Tensor h = relu(einsum({t.x, t.w}, Shape{batch, hidden}, "h"));
  t.y = einsum({h, t.v}, Shape{batch, io}, "y");
  t.grads = gradients({t.y}, {t.dy}, {t.w, t.v, t.x});
  return t;
}

}  // namespace tpusim::mtf::testing
