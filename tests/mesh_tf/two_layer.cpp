#include "tests/mesh_tf/two_layer.hpp"

#include <algorithm>
#include <random>

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

TwoLayerValues feed_random(Executor& executor, const TwoLayer& t, unsigned seed) {
  TwoLayerValues values;
  std::mt19937 random(seed);
  std::normal_distribution<float> normal;
  for (auto* input : {&values.x, &values.dy}) {
    input->resize(static_cast<std::size_t>(t.x.shape().num_elements()));
    for (auto& value : *input) value = normal(random);
  }
  executor.feed(t.x, values.x);
  executor.feed(t.dy, values.dy);
  values.w = executor.variable_value(t.w);
  return values;
}

std::vector<double> reference_dv(const TwoLayerValues& values, std::int64_t batch, std::int64_t io,
                                 std::int64_t hidden) {
  std::vector<double> dv(static_cast<std::size_t>(hidden * io), 0.0);
  for (std::int64_t h = 0; h < hidden; ++h) {
    for (std::int64_t o = 0; o < io; ++o) {
      double sum = 0;
      for (std::int64_t b = 0; b < batch; ++b) {
        double pre = 0;
        for (std::int64_t i = 0; i < io; ++i)
          pre += double(values.x[b * io + i]) * double(values.w[i * hidden + h]);
        sum += std::max(pre, 0.0) * double(values.dy[b * io + o]);
      }
      dv[h * io + o] = sum;
    }
  }
  return dv;
}

}  // namespace tpusim::mtf::testing
