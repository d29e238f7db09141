// Shift along a dim: out[..., i, ...] = x[..., i - offset, ...], zeros shifted in unless it wraps. Along a
// split dim the rows that cross a slice boundary go to the neighbour as a collective permute (a halo).
#include <fmt/format.h>

#include <cmath>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

Tensor shift(const Tensor& x, const std::string& dim, std::int64_t offset, bool wrap,
             const std::string& name) {
  const auto& d = x.dim(dim);
  if (offset <= -d.size || offset >= d.size) {
    throw InputError(fmt::format("shift '{}': offset {} along '{}' of size {} must be smaller than the size",
                                 name, offset, dim, d.size));
  }
  OpNode op;
  op.kind = OpKind::shift;
  op.attributes = ShiftAttributes{dim, offset, wrap};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}

namespace ops {

void lower_shift(Lowerer& lowerer, const OpNode& op) {
  const MeshShape& mesh = lowerer.mesh();
  const ShiftAttributes& shift = op.get<ShiftAttributes>();
  const TensorNode& t = lowerer.graph().tensor(op.output);
  const int x = lowerer.input_value(op, 0);
  const Value in = lowerer.value(x);
  const int d = in.layout.shape().index_of(shift.dim);
  const int m = in.layout.mesh_dim_of(d);
  const std::int64_t o = shift.offset;
  const std::int64_t len = in.layout.slice_sizes()[d];
  const bool wrap = shift.wrap;
  const auto sizes = in.layout.slice_sizes();
  const std::int64_t elems = in.layout.slice_elements();
  const int slices = in.num_slices;
  const std::int64_t a = std::abs(o);
  if (m < 0 || mesh.dim_size(m) == 1 || o == 0) {  // the whole dim is local, or nothing crosses a boundary
    const int out =
        lowerer.new_value(t.id, t.name, lowerer.layout(t.name, t.shape, in.layout.mesh_dims()), t.dtype);
    lowerer.set_result(op, out);
    lowerer.add_compute(op, op.name, {x}, out, 0, [=](Store& s) {
      s[out].assign(elems * slices, 0.0f);
      for (int key = 0; key < slices; ++key) {
        const float* src = s[x].data() + key * elems;
        float* dst = s[out].data() + key * elems;
        if (o >= 0) {
          kernels::copy_block(src, sizes, dst, sizes, d, 0, o, len - o);
          if (wrap && o > 0) kernels::copy_block(src, sizes, dst, sizes, d, len - o, 0, o);
        } else {
          kernels::copy_block(src, sizes, dst, sizes, d, a, 0, len - a);
          if (wrap) kernels::copy_block(src, sizes, dst, sizes, d, 0, len - a, a);
        }
      }
    });
    return;
  }
  if (a > len) {
    throw InputError(fmt::format(
        "shift '{}': offset {} along '{}' exceeds its slice of {} elements (split over mesh dimension '{}'); "
        "shifts reach only the neighbouring processor",
        op.name, o, shift.dim, len, mesh.dim_name(m)));
  }
  // Send the rows that cross the slice boundary to the neighbour along m (a collective permute), keep the
  // rest.
  std::vector<Dimension> halo_dims = in.layout.shape().dims();
  halo_dims[d] = Dimension(shift.dim, a * mesh.dim_size(m));
  const Shape halo_shape(halo_dims);
  const int send = lowerer.new_value(
      -1, in.name + "/halo", lowerer.layout(in.name + "/halo", halo_shape, in.layout.mesh_dims()), in.dtype);
  auto halo_sizes = lowerer.value(send).layout.slice_sizes();
  const std::int64_t halo_elems = lowerer.value(send).layout.slice_elements();
  lowerer.add_compute(op, op.name + "/halo", {x}, send, 0, [=](Store& s) {
    s[send].resize(halo_elems * slices);
    for (int key = 0; key < slices; ++key) {
      kernels::copy_block(s[x].data() + key * elems, sizes, s[send].data() + key * halo_elems, halo_sizes, d,
                          o > 0 ? len - a : 0, 0, a);
    }
  });
  const int received = lowerer.permute(send, d, o, wrap, op, "shift");
  const int out =
      lowerer.new_value(t.id, t.name, lowerer.layout(t.name, t.shape, in.layout.mesh_dims()), t.dtype);
  lowerer.set_result(op, out);
  lowerer.add_compute(op, op.name, {x, received}, out, 0, [=](Store& s) {
    s[out].resize(elems * slices);
    for (int key = 0; key < slices; ++key) {
      const float* src = s[x].data() + key * elems;
      const float* halo = s[received].data() + key * halo_elems;
      float* dst = s[out].data() + key * elems;
      if (o > 0) {
        kernels::copy_block(halo, halo_sizes, dst, sizes, d, 0, 0, a);
        kernels::copy_block(src, sizes, dst, sizes, d, 0, a, len - a);
      } else {
        kernels::copy_block(src, sizes, dst, sizes, d, a, 0, len - a);
        kernels::copy_block(halo, halo_sizes, dst, sizes, d, 0, len - a, a);
      }
    }
  });
}

void shift_gradient(GradientRequest& r) {
  const ShiftAttributes& shift = r.op.get<ShiftAttributes>();
  r.emit(0, [&] { return tpusim::mtf::shift(r.dy, shift.dim, -shift.offset, shift.wrap); });
}

}  // namespace ops
}  // namespace tpusim::mtf
