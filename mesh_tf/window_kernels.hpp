#pragma once
// Local work of convolutions and pooling on one slice of an image [lead, spatial..., channels] (row-major):
// im2col/col2im around sgemm, and the pooling loops. A slice may be a tile extended by halo rows; which of
// its rows lie inside the image is given per spatial dim, so tiles at the image's edges treat the rest as
// padding whatever their buffers hold there.
#include <cstdint>
#include <vector>

#include "mesh_tf/op_node.hpp"

namespace tpusim::mtf::kernels {

// One spatial dim of a slice: output row o reads buffer rows o * stride + q - before for q < window; those in
// [valid_begin, valid_end) are inside the image, the others padding.
struct WindowAxis {
  std::int64_t in = 1, out = 1, window = 1, stride = 1, before = 0;
  std::int64_t valid_begin = 0, valid_end = 1;
};

struct WindowShape {
  std::int64_t lead = 1;  // the product of the leading dims (batch)
  std::int64_t channels = 1;
  std::vector<WindowAxis> axes;
  std::int64_t in_positions() const;
  std::int64_t out_positions() const;
  std::int64_t window_positions() const;
  // Whether every window is one row of the buffer in order (a 1x1 stride-1 conv): im2col is the identity.
  bool is_pointwise() const;
};

// y[lead, out..., out_channels] = windows of x [lead, in..., channels] times filter [window..., channels,
// out_channels]. `scratch` only grows.
void conv_forward(const float* x, const float* filter, std::int64_t out_channels, const WindowShape& shape,
                  float* y, std::vector<float>& scratch);
// dx[lead, in..., channels] += the adjoint of conv_forward in x, applied to dy.
void conv_input_gradient(const float* dy, const float* filter, std::int64_t out_channels,
                         const WindowShape& shape, float* dx, std::vector<float>& scratch);
// dfilter[window..., channels, out_channels] = the adjoint of conv_forward in the filter, applied to dy.
void conv_filter_gradient(const float* x, const float* dy, std::int64_t out_channels,
                          const WindowShape& shape, float* dfilter, std::vector<float>& scratch);

// y[lead, out..., channels] = max or mean over each window's positions inside the image.
void pool_forward(PoolKind kind, const float* x, const WindowShape& shape, float* y);
// dx += dy routed to each window's first maximum (max) or spread over its positions inside the image
// (average).
void pool_gradient(PoolKind kind, const float* x, const float* dy, const WindowShape& shape, float* dx);

}  // namespace tpusim::mtf::kernels
