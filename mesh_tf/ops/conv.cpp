// Convolutions with named dimensions: conv, its adjoint in the image (conv_transpose) and in the filter
// (conv_filter_gradient). Each is the gradient of the others, so all three have gradients. Lowered to
// im2col and sgemm on each slice, with halo exchange along split spatial dims (window_lowering.cpp).
#include <fmt/format.h>

#include "mesh_tf/ops/op_families.hpp"
#include "mesh_tf/ops/window_ops.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

// InputError unless `filter` is [window..., image channels, out channels] for `image`.
void check_filter(const std::string& op, const Shape& image, const Shape& filter, int n) {
  const auto problem = [&](const std::string& what) {
    return InputError(
        fmt::format("{}: the filter {} must be [{} window dims, in_channels, out_channels] for the "
                    "image {}: {}",
                    op, filter.to_string(), n, image.to_string(), what));
  };
  if (filter.rank() != n + 2) throw problem(fmt::format("it has {} dims", filter.rank()));
  if (image.rank() < n + 1) throw problem(fmt::format("the image has {} dims", image.rank()));
  const Dimension& channels = image[image.rank() - 1];
  if (filter[n] != channels) {
    throw problem(fmt::format("its in_channels {} is not the image's last dim {}", filter[n].to_string(),
                              channels.to_string()));
  }
  for (int j = 0; j < n; ++j) {
    if (image.contains(filter[j].name)) {
      throw problem(fmt::format("the window dim '{}' is also a dim of the image", filter[j].name));
    }
  }
  if (image.contains(filter[n + 1].name)) {
    throw problem(fmt::format("out_channels '{}' is also a dim of the image", filter[n + 1].name));
  }
}

std::string op_label(const char* kind, const std::string& name) { return fmt::format("{} '{}'", kind, name); }

// The windows of a conv of `image` by a filter of `filter_shape` (checked), and the conv's output shape.
struct ConvWindows {
  WindowAttributes attributes;
  Shape output;
};
ConvWindows conv_windows(const std::string& op, const Shape& image, const Shape& filter_shape,
                         const std::vector<std::int64_t>& strides, Padding padding) {
  const int n = static_cast<int>(strides.size());
  check_filter(op, image, filter_shape, n);
  std::vector<std::int64_t> window;
  for (int j = 0; j < n; ++j) window.push_back(filter_shape[j].size);
  WindowAttributes attributes = window_attributes(op, image, std::move(window), strides, padding);
  Shape output = windowed_shape(image, attributes, &filter_shape[n + 1]);
  return {std::move(attributes), std::move(output)};
}

// InputError unless dy, which an adjoint takes in place of the conv's output, has the output's shape.
void check_conv_output(const std::string& op, const Tensor& dy, const std::string& image,
                       const ConvWindows& conv) {
  if (dy.shape() != conv.output) {
    throw InputError(
        fmt::format("{}: '{}' has shape {}, but a conv of {} with this filter, stride and padding "
                    "gives {}",
                    op, dy.name(), dy.shape().to_string(), image, conv.output.to_string()));
  }
}

Tensor add_window_op(Graph& graph, OpKind kind, std::vector<int> inputs, WindowAttributes attributes,
                     const Shape& shape, DType dtype, const std::string& name) {
  OpNode op;
  op.kind = kind;
  op.inputs = std::move(inputs);
  op.attributes = std::move(attributes);
  return graph.add_op(std::move(op), shape, dtype, name);
}

}  // namespace

Tensor conv(const Tensor& x, const Tensor& filter, const std::vector<std::int64_t>& strides, Padding padding,
            const std::string& name) {
  Graph& graph = same_graph({x, filter}, "conv");
  ConvWindows windows = conv_windows(op_label("conv", name), x.shape(), filter.shape(), strides, padding);
  return add_window_op(graph, OpKind::conv, {x.id(), filter.id()}, std::move(windows.attributes),
                       windows.output, x.dtype(), name);
}

Tensor conv_transpose(const Tensor& dy, const Tensor& filter, const Shape& input_shape,
                      const std::vector<std::int64_t>& strides, Padding padding, const std::string& name) {
  Graph& graph = same_graph({dy, filter}, "conv_transpose");
  const std::string op = op_label("conv_transpose", name);
  ConvWindows windows = conv_windows(op, input_shape, filter.shape(), strides, padding);
  check_conv_output(op, dy, input_shape.to_string(), windows);
  return add_window_op(graph, OpKind::conv_transpose, {dy.id(), filter.id()}, std::move(windows.attributes),
                       input_shape, dy.dtype(), name);
}

Tensor conv_filter_gradient(const Tensor& x, const Tensor& dy, const Shape& filter_shape,
                            const std::vector<std::int64_t>& strides, Padding padding,
                            const std::string& name) {
  Graph& graph = same_graph({x, dy}, "conv_filter_gradient");
  const std::string op = op_label("conv_filter_gradient", name);
  ConvWindows windows = conv_windows(op, x.shape(), filter_shape, strides, padding);
  check_conv_output(op, dy, fmt::format("'{}' {}", x.name(), x.shape().to_string()), windows);
  return add_window_op(graph, OpKind::conv_filter_gradient, {x.id(), dy.id()}, std::move(windows.attributes),
                       filter_shape, x.dtype(), name);
}

namespace ops {

void lower_conv(Lowerer& lowerer, const OpNode& op) {
  lower_window(lowerer, op,
               [](const std::vector<const float*>& in, float* out, const kernels::WindowShape& shape,
                  std::int64_t out_channels, std::vector<float>& scratch) {
                 kernels::conv_forward(in[0], in[1], out_channels, shape, out, scratch);
               });
}

void lower_conv_transpose(Lowerer& lowerer, const OpNode& op) {
  lower_window(lowerer, op,
               [](const std::vector<const float*>& in, float* out, const kernels::WindowShape& shape,
                  std::int64_t out_channels, std::vector<float>& scratch) {
                 kernels::conv_input_gradient(in[0], in[1], out_channels, shape, out, scratch);
               });
}

void lower_conv_filter_gradient(Lowerer& lowerer, const OpNode& op) {
  lower_window(lowerer, op,
               [](const std::vector<const float*>& in, float* out, const kernels::WindowShape& shape,
                  std::int64_t out_channels, std::vector<float>& scratch) {
                 kernels::conv_filter_gradient(in[0], in[1], out_channels, shape, out, scratch);
               });
}

namespace {

std::vector<std::int64_t> strides_of(const GradientRequest& r) {
  return r.op.get<WindowAttributes>().strides;
}
Padding padding_of(const GradientRequest& r) { return r.op.get<WindowAttributes>().padding; }

}  // namespace

// y = conv(x, f): dx = conv_transpose(dy, f), df = conv_filter_gradient(x, dy).
void conv_gradient(GradientRequest& r) {
  r.emit(0,
         [&] { return conv_transpose(r.dy, r.input(1), r.input(0).shape(), strides_of(r), padding_of(r)); });
  r.emit(1, [&] {
    return conv_filter_gradient(r.input(0), r.dy, r.input(1).shape(), strides_of(r), padding_of(r));
  });
}

// x = conv_transpose(y, f) is linear in y and f with the same bilinear form: d y = conv(dx, f) and
// d f = conv_filter_gradient(dx, y).
void conv_transpose_gradient(GradientRequest& r) {
  r.emit(0, [&] { return conv(r.dy, r.input(1), strides_of(r), padding_of(r)); });
  r.emit(1, [&] {
    return conv_filter_gradient(r.dy, r.input(0), r.input(1).shape(), strides_of(r), padding_of(r));
  });
}

// f = conv_filter_gradient(x, y): d x = conv_transpose(y, df), d y = conv(x, df).
void conv_filter_gradient_gradient(GradientRequest& r) {
  r.emit(0,
         [&] { return conv_transpose(r.input(1), r.dy, r.input(0).shape(), strides_of(r), padding_of(r)); });
  r.emit(1, [&] { return conv(r.input(0), r.dy, strides_of(r), padding_of(r)); });
}

}  // namespace ops
}  // namespace tpusim::mtf
