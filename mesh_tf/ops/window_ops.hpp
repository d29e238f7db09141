#pragma once
// Internal to mesh_tf: what the window family (conv.cpp, pool.cpp) shares: the geometry of windows over an
// image's spatial dims, and one lowering for all five window kinds, with halo exchange along split spatial
// dims (halo_exchange.hpp).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/lowering.hpp"
#include "mesh_tf/window_kernels.hpp"

namespace tpusim::mtf {

// The window attributes of an op over `image` (InputError naming the op for a wrong count of spatial dims, a
// window or stride below 1, or a "valid" window larger than its dim).
WindowAttributes window_attributes(const std::string& op, const Shape& image,
                                   std::vector<std::int64_t> window, std::vector<std::int64_t> strides,
                                   Padding padding);
// The image's shape with the spatial sizes the windows produce and, when given, another last dim.
Shape windowed_shape(const Shape& image, const WindowAttributes& window, const Dimension* last = nullptr);
// The image's spatial dims: the `count` dims before its last.
int first_spatial_dim(const Shape& image, int count);

namespace ops {

// What a window kind computes on one slice: its input slices (in the op's input order, the image extended by
// its halos), its zero-filled output slice, the slice's window shape and the filter's out-channel count
// (conv kinds).
using WindowKernel = std::function<void(const std::vector<const float*>& inputs, float* output,
                                        const kernels::WindowShape& shape, std::int64_t out_channels,
                                        std::vector<float>& scratch)>;
// Lowers any window kind (conv, conv_transpose, conv_filter_gradient, pool, pool_gradient).
void lower_window(Lowerer& lowerer, const OpNode& op, WindowKernel kernel);

}  // namespace ops
}  // namespace tpusim::mtf
