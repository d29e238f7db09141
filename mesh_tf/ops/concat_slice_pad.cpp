// Concat, slice, pad and split along one dim, which they forbid splitting (legality): each is a block copy of
// local slices along that axis.
#include <fmt/format.h>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

Tensor concat(const std::vector<Tensor>& xs, const std::string& dim, const std::string& name) {
  Graph& graph = same_graph(xs, "concat");
  const Shape rest = xs[0].shape().minus({dim});
  std::int64_t total = 0;
  for (const auto& x : xs) {
    total += x.dim(dim).size;
    const Shape others = x.shape().minus({dim});
    if (!others.is_subset_of(rest) || !rest.is_subset_of(others)) {
      throw InputError(fmt::format("concat '{}': '{}' {} and '{}' {} differ in dimensions other than '{}'",
                                   name, xs[0].name(), xs[0].shape().to_string(), x.name(),
                                   x.shape().to_string(), dim));
    }
  }
  // Inputs are matched by dimension name, as everywhere in the language: one whose dims come in another
  // order is transposed to the first input's order, because the local kernel copies blocks in memory order.
  const int axis = xs[0].shape().index_of(dim);
  OpNode op;
  op.kind = OpKind::concat;
  op.attributes = ConcatAttributes{dim};
  op.unsplittable = {dim};
  for (const auto& x : xs) {
    std::vector<Dimension> order = xs[0].shape().dims();
    order[axis] = x.dim(dim);
    const Shape aligned(order);
    op.inputs.push_back(x.shape() == aligned ? x.id() : einsum({x}, aligned).id());
  }
  std::vector<Dimension> dims = xs[0].shape().dims();
  dims[axis] = Dimension(dim, total);
  return graph.add_op(std::move(op), Shape(dims), xs[0].dtype(), name);
}

Tensor slice(const Tensor& x, const std::string& dim, std::int64_t begin, std::int64_t size,
             const std::string& name) {
  const auto& d = x.dim(dim);
  if (begin < 0 || size < 1 || begin + size > d.size) {
    throw InputError(fmt::format("slice '{}': [{}, {}) is outside dimension {} of '{}'", name, begin,
                                 begin + size, d.to_string(), x.name()));
  }
  std::vector<Dimension> dims = x.shape().dims();
  dims[x.shape().index_of(dim)] = Dimension(dim, size);
  OpNode op;
  op.kind = OpKind::slice;
  op.attributes = SliceAttributes{dim, begin, size};
  op.unsplittable = {dim};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), Shape(dims), x.dtype(), name);
}

Tensor pad(const Tensor& x, const std::string& dim, std::int64_t before, std::int64_t after,
           const std::string& name) {
  const auto& d = x.dim(dim);
  if (before < 0 || after < 0) throw InputError(fmt::format("pad '{}': padding must be non-negative", name));
  std::vector<Dimension> dims = x.shape().dims();
  dims[x.shape().index_of(dim)] = Dimension(dim, d.size + before + after);
  OpNode op;
  op.kind = OpKind::pad;
  op.attributes = PadAttributes{dim, before, after};
  op.unsplittable = {dim};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), Shape(dims), x.dtype(), name);
}

std::vector<Tensor> split(const Tensor& x, const std::string& dim, const std::vector<std::int64_t>& sizes,
                          const std::string& name) {
  std::int64_t total = 0;
  for (const auto size : sizes) total += size;
  if (total != x.dim(dim).size) {
    throw InputError(fmt::format("split '{}': sizes add up to {} but dimension '{}' of '{}' has size {}",
                                 name, total, dim, x.name(), x.dim(dim).size));
  }
  std::vector<Tensor> parts;
  std::int64_t begin = 0;
  for (const auto size : sizes) {
    parts.push_back(slice(x, dim, begin, size, name));
    begin += size;
  }
  return parts;
}

namespace ops {

void lower_concat(Lowerer& lowerer, const OpNode& op) {
  lowerer.lower_along_axis(
      op, op.get<ConcatAttributes>().dim, false,
      [](const std::vector<const float*>& src, const std::vector<std::vector<std::int64_t>>& in_sizes,
         float* dst, const std::vector<std::int64_t>& out_sizes, int d) {
        std::int64_t at = 0;
        for (std::size_t i = 0; i < src.size(); ++i) {
          kernels::copy_block(src[i], in_sizes[i], dst, out_sizes, d, 0, at, in_sizes[i][d]);
          at += in_sizes[i][d];
        }
      });
}

void concat_gradient(GradientRequest& r) {
  const std::string& dim = r.op.get<ConcatAttributes>().dim;
  std::int64_t begin = 0;
  for (std::size_t i = 0; i < r.op.inputs.size(); ++i) {
    const auto size = r.input(static_cast<int>(i)).dim(dim).size;
    r.emit(static_cast<int>(i), [&] { return slice(r.dy, dim, begin, size); });
    begin += size;
  }
}

void lower_slice(Lowerer& lowerer, const OpNode& op) {
  const SliceAttributes slice = op.get<SliceAttributes>();
  lowerer.lower_along_axis(
      op, slice.dim, false,
      [slice](const std::vector<const float*>& src, const std::vector<std::vector<std::int64_t>>& in_sizes,
              float* dst, const std::vector<std::int64_t>& out_sizes, int d) {
        kernels::copy_block(src[0], in_sizes[0], dst, out_sizes, d, slice.begin, 0, slice.size);
      });
}

void slice_gradient(GradientRequest& r) {
  const SliceAttributes& slice = r.op.get<SliceAttributes>();
  const auto total = r.input(0).dim(slice.dim).size;
  r.emit(0, [&] { return pad(r.dy, slice.dim, slice.begin, total - slice.begin - slice.size); });
}

void lower_pad(Lowerer& lowerer, const OpNode& op) {
  const PadAttributes pad = op.get<PadAttributes>();
  lowerer.lower_along_axis(
      op, pad.dim, false,
      [pad](const std::vector<const float*>& src, const std::vector<std::vector<std::int64_t>>& in_sizes,
            float* dst, const std::vector<std::int64_t>& out_sizes, int d) {
        kernels::copy_block(src[0], in_sizes[0], dst, out_sizes, d, 0, pad.before, in_sizes[0][d]);
      });
}

void pad_gradient(GradientRequest& r) {
  const PadAttributes& pad = r.op.get<PadAttributes>();
  r.emit(0, [&] { return slice(r.dy, pad.dim, pad.before, r.input(0).dim(pad.dim).size); });
}

}  // namespace ops
}  // namespace tpusim::mtf
