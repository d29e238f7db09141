// Rotary position embeddings' rotation (Su et al. 2021, RoFormer, arXiv 2104.09864, in the form GPT-NeoX and
// Llama use: the two halves of a head's dims form the pairs rotated together): rotate_half(x) along dim d of
// size 2h is [-x[h:], x[:h]]. The model adds x * cos + rotate_half(x) * sin. Elementwise in the sense of
// fusion (XLA fuses its slices, negation and concatenation into the reader), local on every layout that
// keeps d whole.
#include <fmt/format.h>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

Tensor rotate_half(const Tensor& x, const std::string& dim, const std::string& name) {
  const Dimension& d = x.dim(dim);
  if (d.size % 2 != 0) {
    throw InputError(fmt::format("rotate_half '{}': dimension {} of '{}' has an odd size, so it has no halves",
                                 name, d.to_string(), x.name()));
  }
  OpNode op;
  op.kind = OpKind::rotate_half;
  op.attributes = RotateHalfAttributes{dim};
  op.inputs = {x.id()};
  op.unsplittable = {dim};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}

namespace ops {

// The rotation is orthogonal and its transpose its negative: d x = -rotate_half(d y).
void rotate_half_gradient(GradientRequest& r) {
  r.emit(0, [&] { return neg(rotate_half(r.dy, r.op.get<RotateHalfAttributes>().dim)); });
}

void lower_rotate_half(Lowerer& lowerer, const OpNode& op) {
  const TensorNode& t = lowerer.graph().tensor(op.output);
  const int x = lowerer.input_value(op, 0);
  const Value in = lowerer.value(x);  // a copy: new_value appends values
  const int dim = in.layout.shape().index_of(op.get<RotateHalfAttributes>().dim);
  TPUSIM_CHECK(dim >= 0 && in.layout.mesh_dim_of(dim) < 0);
  const int out =
      lowerer.new_value(t.id, t.name, lowerer.layout(t.name, t.shape, in.layout.mesh_dims()), t.dtype);
  lowerer.set_result(op, out);
  const std::vector<std::int64_t>& sizes = in.layout.slice_sizes();
  std::int64_t outer = 1, inner = 1;
  for (int i = 0; i < dim; ++i) outer *= sizes[i];
  for (int i = dim + 1; i < static_cast<int>(sizes.size()); ++i) inner *= sizes[i];
  const std::int64_t size = sizes[dim], half = size / 2;
  const std::int64_t elems = in.layout.slice_elements();
  const int slices = in.num_slices;
  // One operation per element: the negation of the half that changes sign, the other half a move.
  lowerer.add_compute(op, op.name, {x}, out, static_cast<double>(elems), [=](Store& s) {
    s[out].resize(elems * slices);
    const float* src = s[x].data();
    float* dst = s[out].data();
    for (std::int64_t block = 0; block < outer * slices; ++block) {
      const float* from = src + block * size * inner;
      float* to = dst + block * size * inner;
      for (std::int64_t i = 0; i < half; ++i) {
        for (std::int64_t j = 0; j < inner; ++j) {
          to[i * inner + j] = -from[(i + half) * inner + j];
          to[(i + half) * inner + j] = from[i * inner + j];
        }
      }
    }
  });
}

}  // namespace ops
}  // namespace tpusim::mtf
