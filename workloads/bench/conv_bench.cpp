#include "workloads/bench/conv_bench.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mesh_tf/autodiff.hpp"
#include "mesh_tf/execution.hpp"
#include "mesh_tf/local_kernels.hpp"
#include "mesh_tf/random.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::workloads {
using namespace mtf;

std::string ConvLayerShape::to_string() const {
  return fmt::format("{}x{}x{}x{} -> {}, {}x{} stride {}", batch, size, size, in_channels, out_channels,
                     window, window, stride);
}

std::vector<ConvLayerShape> default_conv_layers() {
  return {{8, 224, 3, 64, 7, 2},   {8, 56, 64, 64, 3, 1},   {8, 56, 64, 256, 1, 1},
          {8, 28, 128, 128, 3, 1}, {8, 14, 256, 256, 3, 1}, {8, 56, 128, 128, 3, 2}};
}

ConvEfficiency measure_conv_efficiency(const ConvLayerShape& s, int steps) {
  if (s.batch < 1 || s.size < 1 || s.in_channels < 1 || s.out_channels < 1 || s.window < 1 || s.stride < 1 ||
      steps < 1) {
    throw InputError("bench conv: every size, the window, the stride and the steps must be at least 1");
  }
  Graph g(1);
  const Dimension ci("ci", s.in_channels), co("co", s.out_channels);
  const Shape image{Dimension("batch", s.batch), Dimension("h", s.size), Dimension("w", s.size), ci};
  const Tensor x = g.input("x", image);
  const Tensor f = g.input("f", {Dimension("kh", s.window), Dimension("kw", s.window), ci, co});
  const Tensor y = conv(x, f, {s.stride, s.stride}, Padding::same);
  const Tensor dy = g.input("dy", y.shape());
  const auto grads = gradients({y}, {dy}, {x, f});
  ExecutionOptions options;
  options.outputs = {y, grads[0], grads[1]};
  Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
  const auto noise = [](std::int64_t n, std::uint64_t seed) {
    std::vector<float> v(n);
    for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(standard_normal(seed, i));
    return v;
  };
  executor.feed(x, noise(image.num_elements(), 1));
  executor.feed(f, noise(f.shape().num_elements(), 2));
  executor.feed(dy, noise(y.shape().num_elements(), 3));
  // The products as sgemm sees them: rows = output positions, depth = window x in-channels.
  const std::int64_t rows = y.shape().num_elements() / s.out_channels,
                     depth = s.window * s.window * s.in_channels;
  const int m = static_cast<int>(rows), k = static_cast<int>(depth), n = static_cast<int>(s.out_channels);
  ConvEfficiency e;
  e.shape = s;
  e.steps = steps;
  e.flops = 3 * 2.0 * double(rows) * double(depth) * double(s.out_channels);
  executor.run();  // warm-up: first-touch allocations
  e.engine_s = e.blas_s = 1e300;
  for (int step = 0; step < steps; ++step) {
    e.engine_s = std::min(e.engine_s, executor.run().einsum_wall_s);
    e.blas_s = std::min(e.blas_s, kernels::plain_sgemm_seconds(m, n, k, false, false, 1) +
                                      kernels::plain_sgemm_seconds(m, k, n, false, true, 1) +
                                      kernels::plain_sgemm_seconds(k, n, m, true, false, 1));
  }
  return e;
}

}  // namespace tpusim::workloads
