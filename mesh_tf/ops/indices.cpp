// Integer ids as one-hot vectors, argmax as a one-hot, and the embedding lookup built on one_hot. None passes
// a gradient to its input (ids are data; argmax is piecewise constant).
#include <fmt/format.h>

#include <cmath>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

Tensor one_hot(const Tensor& ids, const Dimension& dim, float on, float off, const std::string& name) {
  if (ids.shape().contains(dim.name)) {
    throw InputError(
        fmt::format("one_hot '{}': ids '{}' already have a dimension '{}'", name, ids.name(), dim.name));
  }
  OpNode op;
  op.kind = OpKind::one_hot;
  op.attributes = OneHotAttributes{dim.name, on, off};
  op.inputs = {ids.id()};
  std::vector<Dimension> dims = ids.shape().dims();
  dims.push_back(dim);
  return ids.graph().add_op(std::move(op), Shape(dims), DType::float32, name);
}

Tensor argmax_one_hot(const Tensor& x, const std::string& dim, const std::string& name) {
  x.dim(dim);
  OpNode op;
  op.kind = OpKind::argmax_one_hot;
  op.attributes = ArgmaxAttributes{dim};
  op.unsplittable = {dim};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}

Tensor gather(const Tensor& table, const Tensor& ids, const std::string& vocab_dim, const std::string& name) {
  same_graph({table, ids}, "gather");
  const Dimension& vocab = table.dim(vocab_dim);
  const Tensor hot = one_hot(ids, vocab, 1, 0, name.empty() ? "" : name + "_one_hot");
  const Tensor hot_cast = table.dtype() == DType::float32 ? hot : cast(hot, table.dtype());
  const Shape out = ids.shape().union_with(table.shape().minus({vocab_dim}));
  return einsum({hot_cast, table}, out, name);
}

namespace ops {

void lower_one_hot(Lowerer& lowerer, const OpNode& op) {
  const TensorNode& t = lowerer.graph().tensor(op.output);
  const int ids = lowerer.input_value(op, 0);
  const int out = lowerer.new_value(t.id, t.name, lowerer.rule_layout(t.id), t.dtype);
  lowerer.set_result(op, out);
  const Value o = lowerer.value(out);
  auto maps = lowerer.key_maps(o, {ids});
  const int d = t.shape.rank() - 1;
  const std::int64_t depth = o.layout.slice_sizes()[d];
  const std::int64_t n_ids = o.layout.slice_elements() / depth;
  const std::int64_t e_ids = lowerer.value(ids).layout.slice_elements();
  TPUSIM_CHECK(n_ids == e_ids);
  // A split one-hot dim: each slice holds the ids that fall in its range.
  std::vector<std::int64_t> offsets;
  for (int key = 0; key < o.num_slices; ++key)
    offsets.push_back(o.offset(d, o.coords_of_key(key, lowerer.mesh())));
  const float on = op.get<OneHotAttributes>().on, off = op.get<OneHotAttributes>().off;
  const std::int64_t eo = o.layout.slice_elements();
  const int slices = o.num_slices;
  lowerer.add_compute(op, op.name, {ids}, out, 0, [=](Store& s) {
    s[out].assign(eo * slices, off);
    for (int key = 0; key < slices; ++key) {
      const float* id = s[ids].data() + maps[0][key] * e_ids;
      float* dst = s[out].data() + key * eo;
      for (std::int64_t i = 0; i < n_ids; ++i) {
        const auto hot = static_cast<std::int64_t>(std::llround(id[i])) - offsets[key];
        if (hot >= 0 && hot < depth) dst[i * depth + hot] = on;
      }
    }
  });
}

void lower_argmax_one_hot(Lowerer& lowerer, const OpNode& op) {
  lowerer.lower_along_axis(
      op, op.get<ArgmaxAttributes>().dim, true,
      [](const std::vector<const float*>& src, const std::vector<std::vector<std::int64_t>>&, float* dst,
         const std::vector<std::int64_t>& out_sizes, int d) {
        const kernels::AxisView v(out_sizes, d);
        const float* x = src[0];
        for (std::int64_t p = 0; p < v.pre; ++p) {
          for (std::int64_t q = 0; q < v.post; ++q) {
            std::int64_t best = 0;
            for (std::int64_t r = 1; r < v.rows; ++r) {
              if (x[v.at(p, r, q)] > x[v.at(p, best, q)]) best = r;
            }
            dst[v.at(p, best, q)] = 1.0f;
          }
        }
      });
}

}  // namespace ops
}  // namespace tpusim::mtf
