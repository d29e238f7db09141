// Reshape and rename: the same elements in the same memory order under new dims. Changing which dims are
// split changes the layout: a mesh dim stays only on a dim that keeps its place in the row-major order; the
// others are gathered, moved or split (allconcat / alltoall / allsplit).
#include <fmt/format.h>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

std::vector<std::int64_t> prefix_products(const Shape& shape) {
  std::vector<std::int64_t> pre;
  std::int64_t p = 1;
  for (const auto& dim : shape.dims()) {
    pre.push_back(p);
    p *= dim.size;
  }
  return pre;
}

}  // namespace

namespace {

Tensor add_reshape_op(const Tensor& x, const Shape& output, const std::string& name, bool weight_sharding) {
  if (output.num_elements() != x.shape().num_elements()) {
    throw InputError(fmt::format("reshape '{}': '{}' {} has {} elements but the new shape {} has {}", name,
                                 x.name(), x.shape().to_string(), x.shape().num_elements(),
                                 output.to_string(), output.num_elements()));
  }
  OpNode op;
  op.kind = OpKind::reshape;
  op.inputs = {x.id()};
  op.attributes = ReshapeAttributes{weight_sharding};
  return x.graph().add_op(std::move(op), output, x.dtype(), name);
}

}  // namespace

Tensor reshape(const Tensor& x, const Shape& output, const std::string& name) {
  return add_reshape_op(x, output, name, false);
}

Tensor weight_sharding_reshape(const Tensor& x, const Shape& output, const std::string& name) {
  return add_reshape_op(x, output, name, true);
}

bool is_weight_sharding_rename(const OpNode& op) {
  return op.kind == OpKind::reshape && op.get<ReshapeAttributes>().weight_sharding;
}

Tensor rename(const Tensor& x, const std::string& old_name, const std::string& new_name,
              const std::string& name) {
  std::vector<Dimension> dims = x.shape().dims();
  const int i = x.shape().index_of(old_name);
  if (i < 0) x.dim(old_name);  // throws naming the tensor
  dims[i] = Dimension(new_name, dims[i].size);
  return reshape(x, Shape(dims), name);
}

namespace ops {

void lower_reshape(Lowerer& lowerer, const OpNode& op) {
  const TensorNode& t = lowerer.graph().tensor(op.output);
  const std::vector<int> out_dims = lowerer.rule_layout(t.id).mesh_dims();
  // In the update phase a reshape is weight-update sharding's (optimizer.hpp), and elsewhere a flagged one is
  // fully sharded weights' (weight_sharding.hpp): a gradient still pending over the data-parallel axis is
  // reduce-scattered into its shard, and shards are all-gathered, both XLA's collectives (Xu et al. 2020)
  // rather than Mesh-TensorFlow's allreduce and masked allconcat.
  const bool sharding = op.phase == Phase::update || op.get<ReshapeAttributes>().weight_sharding;
  const int x = lowerer.input_value(op, 0, sharding);
  const Shape in_shape = lowerer.value(x).layout.shape();
  // A mesh dim can stay on a dimension that keeps its place in the row-major order (same size, same product
  // of the sizes before it): then the local reshape of slices is the slice of the reshape.
  const auto pre_in = prefix_products(in_shape), pre_out = prefix_products(t.shape);
  std::vector<int> mid_in(in_shape.rank(), -1), mid_out(t.shape.rank(), -1);
  for (int j = 0; j < t.shape.rank(); ++j) {
    if (out_dims[j] < 0) continue;
    for (int i = 0; i < in_shape.rank(); ++i) {
      if (in_shape[i].size == t.shape[j].size && pre_in[i] == pre_out[j]) {
        mid_in[i] = out_dims[j];
        mid_out[j] = out_dims[j];
        break;
      }
    }
  }
  const int aligned = lowerer.relayout(x, mid_in, op, sharding, sharding);
  const int local = lowerer.new_value(t.id, t.name, lowerer.layout(t.name, t.shape, mid_out), t.dtype);
  const std::int64_t n = lowerer.value(local).layout.slice_elements() * lowerer.value(local).num_slices;
  TPUSIM_CHECK(n == lowerer.value(aligned).layout.slice_elements() * lowerer.value(aligned).num_slices);
  // A local reshape is one of XLA's cheap fusible ops (instruction_fusion.cc): it fuses into its readers,
  // or is a copy of its own where nothing takes it in.
  const int step =
      lowerer.add_compute(op, op.name, {aligned}, local, 0, [=](Store& s) { s[local] = s[aligned]; });
  lowerer.step(step).fusion = FusionRole::elementwise;
  lowerer.set_result(op, lowerer.relayout(local, out_dims, op, sharding, sharding));
}

// A fully sharded variable's gather passes its gradient back as weight sharding's too: reduce-scattered.
void reshape_gradient(GradientRequest& r) {
  const bool weight_sharding = r.op.get<ReshapeAttributes>().weight_sharding;
  r.emit(0, [&] { return add_reshape_op(r.dy, r.input(0).shape(), "", weight_sharding); });
}

}  // namespace ops
}  // namespace tpusim::mtf
