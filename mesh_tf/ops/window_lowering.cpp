// The geometry of windows and the one lowering of the window kinds. Every kind relates an image
// [lead..., spatial..., channels] to its windowed shape [lead..., spatial'..., channels']: conv and pool read
// the image and write the windowed shape, conv_transpose and pool_gradient write the image, and
// conv_filter_gradient reads both and writes the filter. The image side is extended by halos when read and
// folded when written.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "mesh_tf/ops/halo_exchange.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "mesh_tf/ops/window_ops.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

std::int64_t windowed_size(std::int64_t size, std::int64_t window, std::int64_t stride, Padding padding) {
  return padding == Padding::same ? (size + stride - 1) / stride : (size - window) / stride + 1;
}

}  // namespace

const char* to_string(Padding padding) { return padding == Padding::same ? "same" : "valid"; }

int first_spatial_dim(const Shape& image, int count) { return image.rank() - 1 - count; }

WindowAttributes window_attributes(const std::string& op, const Shape& image,
                                   std::vector<std::int64_t> window, std::vector<std::int64_t> strides,
                                   Padding padding) {
  const int n = static_cast<int>(window.size());
  if (n < 1 || n > 3 || strides.size() != window.size()) {
    throw InputError(
        fmt::format("{}: takes 1 to 3 spatial dims, with one window size and one stride each (got {} "
                    "window sizes and {} strides)",
                    op, window.size(), strides.size()));
  }
  if (image.rank() < n + 1) {
    throw InputError(fmt::format("{}: the image {} needs {} spatial dims and a channel dim, its last", op,
                                 image.to_string(), n));
  }
  WindowAttributes attributes;
  attributes.padding = padding;
  const int first = first_spatial_dim(image, n);
  for (int j = 0; j < n; ++j) {
    const Dimension& dim = image[first + j];
    if (window[j] < 1 || strides[j] < 1) {
      throw InputError(
          fmt::format("{}: along '{}' the window is {} and the stride {}; both must be at least 1", op,
                      dim.name, window[j], strides[j]));
    }
    if (padding == Padding::valid && window[j] > dim.size) {
      throw InputError(fmt::format("{}: a window of {} does not fit in '{}' of size {} with valid padding",
                                   op, window[j], dim.name, dim.size));
    }
    const std::int64_t out = windowed_size(dim.size, window[j], strides[j], padding);
    const std::int64_t total = std::max<std::int64_t>((out - 1) * strides[j] + window[j] - dim.size, 0);
    attributes.pad_before.push_back(padding == Padding::same ? total / 2 : 0);
  }
  attributes.window = std::move(window);
  attributes.strides = std::move(strides);
  return attributes;
}

Shape windowed_shape(const Shape& image, const WindowAttributes& window, const Dimension* last) {
  std::vector<Dimension> dims = image.dims();
  const int n = static_cast<int>(window.window.size());
  const int first = first_spatial_dim(image, n);
  for (int j = 0; j < n; ++j) {
    Dimension& dim = dims[first + j];
    dim = Dimension(dim.name, windowed_size(dim.size, window.window[j], window.strides[j], window.padding));
  }
  if (last != nullptr) dims.back() = *last;
  return Shape(dims);
}

namespace ops {
namespace {

// Where each tensor of a window op sits: which input (or -1: the op's output) is the image, the windowed
// side and the filter; which tensor's layout rule splits the image's and the windowed side's channels; and
// what the op sums over, which stays split as a partial sum.
enum class ChannelsFrom { output, input0, filter_in, filter_out };  // the last two: of an output filter
enum class Sums { nothing, image_channels, windowed_channels, lead_and_spatial };
struct Roles {
  int image = -1, windowed = -1, filter = -1;
  bool image_is_output = false, filter_is_output = false;
  ChannelsFrom image_channels = ChannelsFrom::output, windowed_channels = ChannelsFrom::output;
  Sums sums = Sums::nothing;
};

Roles roles_of(const OpNode& op) {
  using C = ChannelsFrom;
  switch (op.kind) {
    case OpKind::conv:
      return {0, -1, 1, false, false, C::input0, C::output, Sums::image_channels};
    case OpKind::conv_transpose:
      return {-1, 0, 1, true, false, C::output, C::input0, Sums::windowed_channels};
    case OpKind::conv_filter_gradient:
      return {0, 1, -1, false, true, C::filter_in, C::filter_out, Sums::lead_and_spatial};
    case OpKind::pool:
      return {0, -1, -1, false, false, C::output, C::output, Sums::nothing};
    case OpKind::pool_gradient:  // max pooling reads the image again; average pooling only its windowed side
      return op.inputs.size() == 2 ? Roles{0, 1, -1, true, false, C::output, C::output, Sums::nothing}
                                   : Roles{-1, 0, -1, true, false, C::output, C::output, Sums::nothing};
    default:
      TPUSIM_CHECK(false);
      return {};
  }
}

struct HaloAxis {
  int dim = -1;  // tensor dim of the image
  int mesh_dim = -1;
  std::int64_t before = 0, after = 0, tile = 0;  // halo rows before and after a tile of `tile` rows
};

// What every step of lower_window reads: the op, its window, where its tensors sit and the two shapes the
// window relates (the image and the windowed side), so that the steps take one argument, not eight.
struct WindowSides {
  const OpNode& op;
  const WindowAttributes& w;
  Roles roles;
  const TensorNode& t;  // the op's output
  Shape image, windowed;
  int n = 0;      // spatial dims
  int first = 0;  // the image's first spatial dim
};

WindowSides window_sides_of(const Graph& graph, const OpNode& op) {
  const WindowAttributes& w = op.get<WindowAttributes>();
  const Roles roles = roles_of(op);
  const TensorNode& t = graph.tensor(op.output);
  const auto shape_of = [&](int role_input) {
    return role_input >= 0 ? graph.tensor(op.inputs[role_input]).shape : t.shape;
  };
  const Shape image = roles.image_is_output ? t.shape : shape_of(roles.image);
  const Shape windowed = roles.windowed >= 0 ? shape_of(roles.windowed) : t.shape;
  const int n = static_cast<int>(w.window.size());
  return {op, w, roles, t, image, windowed, n, first_spatial_dim(image, n)};
}

// The mesh dims of the op as computed: `grid` for the lead and spatial dims (shared by the image and the
// windowed side), one for each side's channels, and the output's own rule, to which the result returns.
struct WindowLayout {
  std::vector<int> out_rule, grid;
  int image_channels = -1, windowed_channels = -1;
};

// The layout: the output's by the rules, except a conv filter gradient, which takes the image's for the
// lead and spatial dims it sums over. A mesh dim splits one dim name: the output's layout wins over a
// summed dim's.
WindowLayout window_layout_of(const Lowerer& lowerer, const WindowSides& sides) {
  const OpNode& op = sides.op;
  const Roles& roles = sides.roles;
  const int n = sides.n, first = sides.first;
  std::vector<std::string> window_dims;
  if (roles.filter_is_output) {
    for (int j = 0; j < n; ++j) window_dims.push_back(sides.t.shape[j].name);
  }
  WindowLayout layout;
  layout.out_rule = lowerer.rule_layout(sides.t.id, window_dims).mesh_dims();
  const std::vector<int>& out_rule = layout.out_rule;
  std::vector<int>& grid = layout.grid;
  grid.assign(out_rule.begin(), out_rule.begin() + std::min<int>(first + n, out_rule.size()));
  if (roles.filter_is_output) {
    const auto image_rule = lowerer.rule_layout(op.inputs[0]).mesh_dims();
    grid.assign(image_rule.begin(), image_rule.begin() + first + n);
  }
  const auto channels_dim = [&](ChannelsFrom from) {
    switch (from) {
      case ChannelsFrom::output:
        return out_rule.back();
      case ChannelsFrom::input0:
        return lowerer.rule_layout(op.inputs[0]).mesh_dims().back();
      case ChannelsFrom::filter_in:
        return out_rule[n];
      case ChannelsFrom::filter_out:
        return out_rule[n + 1];
    }
    return -1;
  };
  int& image_channels = layout.image_channels;
  int& windowed_channels = layout.windowed_channels;
  image_channels = channels_dim(roles.image_channels);
  windowed_channels = channels_dim(roles.windowed_channels);
  const auto in_grid = [&](int m) { return m >= 0 && std::find(grid.begin(), grid.end(), m) != grid.end(); };
  if (roles.sums == Sums::image_channels && (in_grid(image_channels) || image_channels == windowed_channels))
    image_channels = -1;
  if (roles.sums == Sums::windowed_channels &&
      (in_grid(windowed_channels) || windowed_channels == image_channels))
    windowed_channels = -1;
  if (roles.sums == Sums::lead_and_spatial) {
    for (auto& m : grid) m = m == image_channels || m == windowed_channels ? -1 : m;
  }
  return layout;
}

// Spatial dims split over a mesh dim exchange halos when every tile reads the same window of rows;
// otherwise they are gathered (their grid entry becomes -1). A tile too small for its neighbours' halo is
// the user's split, refused with the way out.
std::vector<HaloAxis> window_halo_axes(const MeshShape& mesh, const WindowSides& sides,
                                       std::vector<int>& grid) {
  const OpNode& op = sides.op;
  const WindowAttributes& w = sides.w;
  const Shape& image = sides.image;
  std::vector<HaloAxis> halos;
  for (int j = 0; j < sides.n; ++j) {
    const int d = sides.first + j;
    const int m = grid[d];
    if (m < 0 || mesh.dim_size(m) == 1) continue;
    const std::int64_t parts = mesh.dim_size(m), size = image[d].size, out = sides.windowed[d].size;
    if (size != out * w.strides[j] || size % parts != 0 || out % parts != 0) {
      grid[d] = -1;
      continue;
    }
    HaloAxis halo{d, m, w.pad_before[j], w.window[j] - w.strides[j] - w.pad_before[j], size / parts};
    if (halo.before > halo.tile || halo.after > halo.tile) {
      throw InputError(fmt::format(
          "{} '{}': '{}' is split over mesh dimension '{}' into tiles of {} rows, but a window of {} with "
          "stride "
          "{} reaches {} rows into the tile before and {} into the tile after; a tile must hold its "
          "neighbours' halo (split '{}' fewer ways, or use a larger image or a smaller window)",
          to_string(op.kind), op.name, image[d].name, mesh.dim_name(m), halo.tile, w.window[j], w.strides[j],
          halo.before, std::max<std::int64_t>(halo.after, 0), image[d].name));
    }
    halo.after = std::max<std::int64_t>(halo.after, 0);
    halos.push_back(halo);
  }
  return halos;
}

// The mesh dims of each tensor's slices: the image and the windowed side share the grid, the filter is
// split only along its channels; `pending`: the contracted mesh dims that stay split, left as partial sums.
struct WindowTensorDims {
  std::vector<int> image, windowed, filter, pending;
};

WindowTensorDims window_tensor_dims(const MeshShape& mesh, const WindowSides& sides,
                                    const WindowLayout& layout) {
  WindowTensorDims dims;
  dims.image = dims.windowed = layout.grid;
  dims.image.push_back(layout.image_channels);
  dims.windowed.push_back(layout.windowed_channels);
  dims.filter.assign(sides.n, -1);
  dims.filter.push_back(layout.image_channels);
  dims.filter.push_back(layout.windowed_channels);
  const auto split = [&](int m) { return m >= 0 && mesh.dim_size(m) > 1; };
  const Sums sums = sides.roles.sums;
  if (sums == Sums::image_channels && split(layout.image_channels))
    dims.pending.push_back(layout.image_channels);
  if (sums == Sums::windowed_channels && split(layout.windowed_channels))
    dims.pending.push_back(layout.windowed_channels);
  if (sums == Sums::lead_and_spatial) {
    for (const int m : layout.grid) {
      if (split(m)) dims.pending.push_back(m);
    }
  }
  return dims;
}

// Bring the inputs to the layout, the image extended by its halos: the values the kernel reads.
std::vector<int> window_inputs(Lowerer& lowerer, const WindowSides& sides, const WindowTensorDims& dims,
                               const std::vector<HaloAxis>& halos) {
  const OpNode& op = sides.op;
  const Roles& roles = sides.roles;
  std::vector<int> ins;
  for (int i = 0; i < static_cast<int>(op.inputs.size()); ++i) {
    const std::vector<int>& target = i == roles.image      ? dims.image
                                     : i == roles.windowed ? dims.windowed
                                                           : dims.filter;
    int v = lowerer.relayout(lowerer.input_value(op, i), target, op);
    if (i == roles.image) {
      for (const auto& halo : halos) v = extend_halo(lowerer, op, v, halo.dim, halo.before, halo.after);
    }
    ins.push_back(v);
  }
  return ins;
}

// The output as computed: an image with its halos (folded afterwards), or the windowed side or filter.
int window_computed_value(Lowerer& lowerer, const WindowSides& sides, const WindowTensorDims& dims,
                          const std::vector<HaloAxis>& halos) {
  const Roles& roles = sides.roles;
  const TensorNode& t = sides.t;
  const std::vector<int>& computed_dims = roles.image_is_output    ? dims.image
                                          : roles.filter_is_output ? dims.filter
                                                                   : dims.windowed;
  std::vector<Dimension> computed_shape = t.shape.dims();
  if (roles.image_is_output) {
    for (const auto& halo : halos) {
      computed_shape[halo.dim] =
          Dimension(sides.image[halo.dim].name,
                    (halo.before + halo.tile + halo.after) * lowerer.mesh().dim_size(halo.mesh_dim));
    }
  }
  const bool folds = roles.image_is_output && !halos.empty();
  const std::string name = folds ? t.name + "/with_halo" : t.name;
  return lowerer.new_value(folds ? -1 : t.id, name,
                           lowerer.layout(name, Shape(computed_shape), computed_dims), t.dtype, dims.pending);
}

// Each slice's window shape: which of its buffer's rows are inside the image depends on the tile.
std::vector<kernels::WindowShape> window_slice_shapes(const MeshShape& mesh, const WindowSides& sides,
                                                      const Value& c, const Value& image_value,
                                                      const Value& windowed_value,
                                                      const std::vector<HaloAxis>& halos) {
  const WindowAttributes& w = sides.w;
  const int first = sides.first;
  std::vector<kernels::WindowShape> shapes(c.num_slices);
  for (int key = 0; key < c.num_slices; ++key) {
    const auto coords = c.coords_of_key(key, mesh);
    kernels::WindowShape& shape = shapes[key];
    for (int d = 0; d < first; ++d) shape.lead *= image_value.layout.slice_sizes()[d];
    shape.channels = image_value.layout.slice_sizes().back();
    for (int j = 0; j < sides.n; ++j) {
      const int d = first + j;
      kernels::WindowAxis axis;
      axis.in = image_value.layout.slice_sizes()[d];
      axis.out = windowed_value.layout.slice_sizes()[d];
      axis.window = w.window[j];
      axis.stride = w.strides[j];
      axis.valid_begin = 0;
      axis.valid_end = axis.in;
      axis.before = w.pad_before[j];
      for (const auto& halo : halos) {
        if (halo.dim != d) continue;
        const std::int64_t start =
            coords[halo.mesh_dim] * halo.tile - halo.before;  // of the buffer, in the image
        axis.before = 0;
        axis.valid_begin = std::max<std::int64_t>(0, -start);
        axis.valid_end = std::min<std::int64_t>(axis.in, sides.image[d].size - start);
      }
      shape.axes.push_back(axis);
    }
  }
  return shapes;
}

// The work of one slice, for the device model: pooling is one operation per window entry; a conv is a
// matmul of its rows by its window entries times channels (im2col), in the orientation of its kind.
Lowerer::LocalWork window_local_work(const WindowSides& sides, const kernels::WindowShape& any,
                                     std::int64_t out_channels) {
  const double rows = static_cast<double>(any.lead * any.out_positions());
  const double window_channels = static_cast<double>(any.window_positions() * any.channels);
  const bool is_conv = sides.roles.filter >= 0 || sides.roles.filter_is_output;
  if (!is_conv) return Lowerer::LocalWork(rows * window_channels);
  const OpKind kind = sides.op.kind;
  const auto r = static_cast<std::int64_t>(rows), k = static_cast<std::int64_t>(window_channels);
  const MatmulSizes sizes = kind == OpKind::conv             ? MatmulSizes{1, r, out_channels, k}
                            : kind == OpKind::conv_transpose ? MatmulSizes{1, r, k, out_channels}
                                                             : MatmulSizes{1, k, out_channels, r};
  return Lowerer::LocalWork(2 * rows * window_channels * static_cast<double>(out_channels), 0, sizes);
}

// The compute step: every slice runs the kernel on its inputs' slices with its own window shape.
void add_window_compute(Lowerer& lowerer, const WindowSides& sides, const std::vector<int>& ins, int computed,
                        const std::vector<kernels::WindowShape>& shapes, std::int64_t out_channels,
                        WindowKernel kernel) {
  const OpNode& op = sides.op;
  const Value& c = lowerer.value(computed);
  const Lowerer::LocalWork work = window_local_work(sides, shapes.front(), out_channels);
  auto maps = lowerer.key_maps(c, ins);
  std::vector<std::int64_t> in_elems;
  for (const int v : ins) in_elems.push_back(lowerer.value(v).layout.slice_elements());
  const std::int64_t out_elems = c.layout.slice_elements();
  const int slices = c.num_slices;
  const int step = lowerer.add_compute(op, op.name, ins, computed, work, [=](Store& s) {
    s[computed].assign(out_elems * slices, 0.0f);
    thread_local std::vector<float> scratch;
    std::vector<const float*> pointers(ins.size());
    for (int key = 0; key < slices; ++key) {
      for (std::size_t i = 0; i < ins.size(); ++i)
        pointers[i] = s[ins[i]].data() + maps[i][key] * in_elems[i];
      kernel(pointers, s[computed].data() + key * out_elems, shapes[key], out_channels, scratch);
    }
  });
  if (sides.roles.filter >= 0 || sides.roles.filter_is_output) {  // a conv: an einsum on the matrix unit
    lowerer.step(step).is_einsum = true;
    lowerer.step(step).executed_flops = work.flops * slices;
  }
}

}  // namespace

// The steps in order: the sides and their layout, the halos, the inputs brought to the layout, the value
// computed and its kernel step, then the halos folded back and the result relaid out to the output's rule.
void lower_window(Lowerer& lowerer, const OpNode& op, WindowKernel kernel) {
  const MeshShape& mesh = lowerer.mesh();
  const WindowSides sides = window_sides_of(lowerer.graph(), op);
  WindowLayout layout = window_layout_of(lowerer, sides);
  const std::vector<HaloAxis> halos = window_halo_axes(mesh, sides, layout.grid);
  const WindowTensorDims dims = window_tensor_dims(mesh, sides, layout);
  const std::vector<int> ins = window_inputs(lowerer, sides, dims, halos);
  const int computed = window_computed_value(lowerer, sides, dims, halos);

  const Value& c = lowerer.value(computed);
  const Value& image_value = lowerer.value(sides.roles.image_is_output ? computed : ins[sides.roles.image]);
  const Value& windowed_value = sides.roles.windowed >= 0 ? lowerer.value(ins[sides.roles.windowed]) : c;
  const std::vector<kernels::WindowShape> shapes =
      window_slice_shapes(mesh, sides, c, image_value, windowed_value, halos);
  const std::int64_t out_channels = windowed_value.layout.slice_sizes().back();
  add_window_compute(lowerer, sides, ins, computed, shapes, out_channels, std::move(kernel));

  // Fold the halos into the image's tiles, the last fold writing the output tensor.
  const TensorNode& t = sides.t;
  const bool folds = sides.roles.image_is_output && !halos.empty();
  int result = computed;
  for (std::size_t i = folds ? halos.size() : 0; i-- > 0;) {
    const bool last = i == 0;
    result = fold_halo(lowerer, op, result, halos[i].dim, halos[i].before, halos[i].after, last ? t.id : -1,
                       t.name);
  }
  if (lowerer.value(result).layout.mesh_dims() != layout.out_rule)
    result = lowerer.relayout(result, layout.out_rule, op);
  lowerer.set_result(op, result);
}

}  // namespace ops
}  // namespace tpusim::mtf
