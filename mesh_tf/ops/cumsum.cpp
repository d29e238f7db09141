// Cumulative sums along an unsplittable dim, forward or reverse, inclusive or exclusive.
#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"

namespace tpusim::mtf {
namespace {

Tensor cumsum_op(const Tensor& x, const std::string& dim, bool exclusive, bool reverse,
                 const std::string& name) {
  x.dim(dim);
  OpNode op;
  op.kind = OpKind::cumsum;
  op.attributes = CumsumAttributes{dim, exclusive, reverse};
  op.unsplittable = {dim};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}

}  // namespace

Tensor cumsum(const Tensor& x, const std::string& dim, bool exclusive, const std::string& name) {
  return cumsum_op(x, dim, exclusive, false, name);
}
Tensor reverse_cumsum(const Tensor& x, const std::string& dim, bool exclusive, const std::string& name) {
  return cumsum_op(x, dim, exclusive, true, name);
}

namespace ops {

void lower_cumsum(Lowerer& lowerer, const OpNode& op) {
  const CumsumAttributes cumsum = op.get<CumsumAttributes>();
  lowerer.lower_along_axis(
      op, cumsum.dim, true,
      [cumsum](const std::vector<const float*>& src, const std::vector<std::vector<std::int64_t>>&,
               float* dst, const std::vector<std::int64_t>& out_sizes, int d) {
        const kernels::AxisView v(out_sizes, d);
        const float* x = src[0];
        for (std::int64_t p = 0; p < v.pre; ++p) {
          for (std::int64_t q = 0; q < v.post; ++q) {
            float acc = 0;
            for (std::int64_t step = 0; step < v.rows; ++step) {
              const std::int64_t at = v.at(p, cumsum.reverse ? v.rows - 1 - step : step, q);
              if (cumsum.exclusive) {
                dst[at] = acc;
                acc += x[at];
              } else {
                acc += x[at];
                dst[at] = acc;
              }
            }
          }
        }
      });
}

// x_j reaches the outputs on its far side: those after j (forward) or before j (reverse), and j itself unless
// exclusive. That is the cumsum of dy in the opposite direction, equally exclusive.
void cumsum_gradient(GradientRequest& r) {
  const CumsumAttributes& c = r.op.get<CumsumAttributes>();
  r.emit(0, [&] {
    return c.reverse ? cumsum(r.dy, c.dim, c.exclusive) : reverse_cumsum(r.dy, c.dim, c.exclusive);
  });
}

}  // namespace ops
}  // namespace tpusim::mtf
