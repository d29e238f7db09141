// Max and average pooling over windows of an image's spatial dims, and their gradient. Along split spatial
// dims the windows read their neighbours' rows through halo exchange, as convolutions do.
#include <fmt/format.h>

#include "mesh_tf/ops/op_families.hpp"
#include "mesh_tf/ops/window_ops.hpp"

namespace tpusim::mtf {
namespace {

Tensor pool(PoolKind kind, const Tensor& x, const std::vector<std::int64_t>& window,
            const std::vector<std::int64_t>& strides, Padding padding, const std::string& name) {
  const char* what = kind == PoolKind::max ? "max_pool" : "avg_pool";
  WindowAttributes attributes =
      window_attributes(fmt::format("{} '{}'", what, name), x.shape(), window, strides, padding);
  attributes.pool = kind;
  const Shape out = windowed_shape(x.shape(), attributes);
  OpNode op;
  op.kind = OpKind::pool;
  op.inputs = {x.id()};
  op.attributes = std::move(attributes);
  return x.graph().add_op(std::move(op), out, x.dtype(), name);
}

// dx for y = pool(x): max pooling reads x again to find each window's maximum; average pooling needs only
// x's shape.
Tensor pool_gradient(const Tensor& x, const Tensor& dy, const WindowAttributes& attributes) {
  OpNode op;
  op.kind = OpKind::pool_gradient;
  op.inputs =
      attributes.pool == PoolKind::max ? std::vector<int>{x.id(), dy.id()} : std::vector<int>{dy.id()};
  op.attributes = attributes;
  return x.graph().add_op(std::move(op), x.shape(), dy.dtype(), "");
}

}  // namespace

Tensor max_pool(const Tensor& x, const std::vector<std::int64_t>& window,
                const std::vector<std::int64_t>& strides, Padding padding, const std::string& name) {
  return pool(PoolKind::max, x, window, strides, padding, name);
}

Tensor avg_pool(const Tensor& x, const std::vector<std::int64_t>& window,
                const std::vector<std::int64_t>& strides, Padding padding, const std::string& name) {
  return pool(PoolKind::average, x, window, strides, padding, name);
}

namespace ops {

void lower_pool(Lowerer& lowerer, const OpNode& op) {
  const PoolKind kind = op.get<WindowAttributes>().pool;
  lower_window(lowerer, op,
               [kind](const std::vector<const float*>& in, float* out, const kernels::WindowShape& shape,
                      std::int64_t, std::vector<float>&) { kernels::pool_forward(kind, in[0], shape, out); });
}

void lower_pool_gradient(Lowerer& lowerer, const OpNode& op) {
  const PoolKind kind = op.get<WindowAttributes>().pool;
  lower_window(lowerer, op,
               [kind](const std::vector<const float*>& in, float* out, const kernels::WindowShape& shape,
                      std::int64_t, std::vector<float>&) {
                 if (kind == PoolKind::max) {
                   kernels::pool_gradient(kind, in[0], in[1], shape, out);
                 } else {
                   kernels::pool_gradient(kind, nullptr, in[0], shape, out);
                 }
               });
}

void pool_gradient(GradientRequest& r) {
  r.emit(0, [&] { return tpusim::mtf::pool_gradient(r.input(0), r.dy, r.op.get<WindowAttributes>()); });
}

}  // namespace ops
}  // namespace tpusim::mtf
