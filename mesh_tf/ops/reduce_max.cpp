// Maximum over the dims missing from the output (sums are einsums). A reduced dim that is split leaves
// per-slice maxima, combined by a max-allreduce over its mesh dims.
#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::mtf {

Tensor reduce_max(const Tensor& x, const Shape& output, const std::string& name) {
  check_reduction(x, output, name);
  OpNode op;
  op.kind = OpKind::reduce;
  op.attributes = ReduceAttributes{sim::ReduceOp::max};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), output, x.dtype(), name);
}

namespace ops {

void lower_reduce(Lowerer& lowerer, const OpNode& op) {
  TPUSIM_CHECK(op.get<ReduceAttributes>().op == sim::ReduceOp::max);  // sums are einsums
  const MeshShape& mesh = lowerer.mesh();
  const TensorNode& t = lowerer.graph().tensor(op.output);
  const int x = lowerer.input_value(op, 0);
  const Value in = lowerer.value(x);  // a copy: new_value appends values
  std::vector<int> reduced_mesh_dims;
  const Shape& in_shape = in.layout.shape();
  for (int d = 0; d < in_shape.rank(); ++d) {
    const int m = in.layout.mesh_dim_of(d);
    if (m >= 0 && mesh.dim_size(m) > 1 && !t.shape.contains(in_shape[d].name)) reduced_mesh_dims.push_back(m);
  }
  const int local = lowerer.new_value(t.id, t.name, lowerer.rule_layout(t.id), t.dtype, reduced_mesh_dims);
  const Value& o = lowerer.value(local);
  auto maps = lowerer.key_maps(o, {x});
  const auto xd = lowerer.local_dims(in), od = lowerer.local_dims(o);
  const std::int64_t ex = in.layout.slice_elements(), eo = o.layout.slice_elements();
  const int slices = o.num_slices;
  lowerer.add_compute(op, op.name, {x}, local, static_cast<double>(ex), [=](Store& s) {
    s[local].resize(eo * slices);
    for (int key = 0; key < slices; ++key) {
      kernels::reduce_max(s[x].data() + maps[0][key] * ex, xd, s[local].data() + key * eo, od);
    }
  });
  lowerer.set_result(op, reduced_mesh_dims.empty() ? local
                                                   : lowerer.allreduce(local, reduced_mesh_dims,
                                                                       sim::ReduceOp::max, op, "reduce_max"));
}

// The gradient goes to every element equal to the maximum.
void reduce_gradient(GradientRequest& r) {
  r.emit(0, [&] { return mul(r.dy, equal(r.input(0), r.out)); });
}

}  // namespace ops
}  // namespace tpusim::mtf
