// Named contractions: einsum and the ops built on it (matmul, sums, means, broadcasts). Lowered to local
// sgemm on slices; a summed dimension that stays split leaves a partial sum, allreduced when a consumer needs
// it.
#include <fmt/format.h>

#include <memory>
#include <set>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

Tensor einsum(const std::vector<Tensor>& inputs, const Shape& output, const std::string& name) {
  if (inputs.empty() || inputs.size() > 2) {
    throw InputError(fmt::format("einsum '{}': takes 1 or 2 inputs, got {}", name, inputs.size()));
  }
  Graph& graph = same_graph(inputs, "einsum");
  Shape all = inputs[0].shape();
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    try {
      all = all.union_with(inputs[i].shape());
    } catch (const InputError& error) {
      throw InputError(fmt::format("einsum '{}': inputs '{}' {} and '{}' {} disagree: {}", name,
                                   inputs[0].name(), inputs[0].shape().to_string(), inputs[i].name(),
                                   inputs[i].shape().to_string(), error.what()));
    }
  }
  for (const auto& dim : output.dims()) {
    const int i = all.index_of(dim.name);
    if (i >= 0 && all[i].size != dim.size) {
      throw InputError(fmt::format("einsum '{}': output dimension {} but the inputs have {}", name,
                                   dim.to_string(), all[i].to_string()));
    }
  }
  OpNode op;
  op.kind = OpKind::einsum;
  for (const auto& t : inputs) op.inputs.push_back(t.id());
  return graph.add_op(std::move(op), output, inputs[0].dtype(), name);
}

Tensor einsum(const std::vector<Tensor>& inputs, const std::vector<std::string>& output_dims,
              const std::string& name) {
  if (inputs.empty()) throw InputError("einsum: needs at least one input");
  Shape all = inputs[0].shape();
  for (std::size_t i = 1; i < inputs.size(); ++i) all = all.union_with(inputs[i].shape());
  std::vector<Dimension> dims;
  for (const auto& dim_name : output_dims) dims.push_back(all.at(dim_name, "einsum '" + name + "' inputs"));
  return einsum(inputs, Shape(dims), name);
}

Tensor matmul(const Tensor& a, const Tensor& b, const std::string& name) {
  const Shape out = a.shape().union_with(b.shape());
  std::vector<std::string> shared;
  for (const auto& dim : a.shape().dims()) {
    if (b.shape().contains(dim.name)) shared.push_back(dim.name);
  }
  return einsum({a, b}, out.minus(shared), name);
}

void check_reduction(const Tensor& x, const Shape& output, const std::string& name) {
  if (!output.is_subset_of(x.shape())) {
    throw InputError(fmt::format("reduce '{}': output shape {} is not a subset of the shape {} of '{}'", name,
                                 output.to_string(), x.shape().to_string(), x.name()));
  }
}

Tensor reduce_sum(const Tensor& x, const Shape& output, const std::string& name) {
  check_reduction(x, output, name);
  return einsum({x}, output, name);
}
Tensor reduce_mean(const Tensor& x, const Shape& output, const std::string& name) {
  const Tensor sum = reduce_sum(x, output, name);
  return scale(sum,
               static_cast<double>(output.num_elements()) / static_cast<double>(x.shape().num_elements()));
}
Tensor reduce_sum_over(const Tensor& x, const std::vector<std::string>& dims, const std::string& name) {
  for (const auto& dim : dims) x.dim(dim);
  return reduce_sum(x, x.shape().minus(dims), name);
}

Tensor broadcast(const Tensor& x, const Shape& output, const std::string& name) {
  if (!x.shape().is_subset_of(output)) {
    throw InputError(fmt::format("broadcast '{}': shape {} of '{}' is not contained in {}", name,
                                 x.shape().to_string(), x.name(), output.to_string()));
  }
  return einsum({x}, output, name);
}

namespace ops {

void lower_einsum(Lowerer& lowerer, const OpNode& op) {
  const MeshShape& mesh = lowerer.mesh();
  const TensorNode& t = lowerer.graph().tensor(op.output);
  const std::vector<int> out_dims = lowerer.rule_layout(t.id).mesh_dims();
  std::vector<int> ins;
  for (std::size_t i = 0; i < op.inputs.size(); ++i)
    ins.push_back(lowerer.input_value(op, static_cast<int>(i)));
  // A mesh dim may carry only one dimension name across the inputs and the output; otherwise the local
  // products would miss cross terms. Keep the output's (or the first) and gather the others.
  for (int m = 0; m < mesh.rank(); ++m) {
    std::string keep;
    const int out_dim = std::find(out_dims.begin(), out_dims.end(), m) - out_dims.begin();
    if (out_dim < t.shape.rank()) keep = t.shape[out_dim].name;
    for (auto& v : ins) {
      const TensorLayout in = lowerer.value(v).layout;  // a copy: relayout appends values
      for (int d = 0; d < in.shape().rank(); ++d) {
        if (in.mesh_dim_of(d) != m) continue;
        if (keep.empty()) keep = in.shape()[d].name;
        if (in.shape()[d].name != keep) {
          std::vector<int> target = in.mesh_dims();
          target[d] = -1;
          v = lowerer.relayout(v, target, op);
        }
      }
    }
  }
  // Summed dims that stay split leave partial sums over their mesh dims.
  std::set<int> pending;
  for (const int v : ins) {
    const TensorLayout& in = lowerer.value(v).layout;
    for (int d = 0; d < in.shape().rank(); ++d) {
      const int m = in.mesh_dim_of(d);
      if (m >= 0 && mesh.dim_size(m) > 1 && !t.shape.contains(in.shape()[d].name)) pending.insert(m);
    }
  }
  const int out = lowerer.new_value(t.id, t.name, lowerer.layout(t.name, t.shape, out_dims), t.dtype,
                                    {pending.begin(), pending.end()});
  lowerer.set_result(op, out);
  const Value& o = lowerer.value(out);
  std::vector<kernels::LocalDims> in_dims;
  for (const int v : ins) in_dims.push_back(lowerer.local_dims(lowerer.value(v)));
  auto plan = std::make_shared<kernels::EinsumPlan>(in_dims, lowerer.local_dims(o));
  auto maps = lowerer.key_maps(o, ins);
  std::vector<std::int64_t> in_elems;
  for (const int v : ins) in_elems.push_back(lowerer.value(v).layout.slice_elements());
  const std::int64_t out_elems = o.layout.slice_elements();
  const int slices = o.num_slices;
  const MatmulSizes sizes = plan->matmul_sizes();
  const int step = lowerer.add_compute(op, op.name, ins, out, {plan->flops(), 0, sizes}, [=](Store& s) {
    s[out].resize(out_elems * slices);
    thread_local std::vector<float> scratch;
    std::vector<const float*> ptrs(ins.size());
    for (int key = 0; key < slices; ++key) {
      for (std::size_t i = 0; i < ins.size(); ++i) ptrs[i] = s[ins[i]].data() + maps[i][key] * in_elems[i];
      plan->run(ptrs, s[out].data() + key * out_elems, scratch);
    }
  });
  lowerer.step(step).is_einsum = true;
  // What XLA makes of it (matrix_unit.hpp): a matmul stays one; a contraction it strength-reduces is a
  // multiply (nothing summed) or a multiply and a reduce; a one-input einsum sums (a reduce) or broadcasts.
  const bool sums = ins.size() == 2 ? sizes.k > 1 || plan->pre_reduces() : out_elems < in_elems[0];
  lowerer.step(step).fusion = ins.size() == 2 && runs_on_matrix_unit(sizes) ? FusionRole::contraction
                              : sums                                        ? FusionRole::reduction
                                                                            : FusionRole::elementwise;
  lowerer.step(step).executed_flops = plan->flops() * slices;
}

void einsum_gradient(GradientRequest& r) {
  if (r.op.inputs.size() == 1) {
    r.emit(0, [&] { return einsum({r.dy}, r.input(0).shape()); });
  } else {
    r.emit(0, [&] { return einsum({r.dy, r.input(1)}, r.input(0).shape()); });
    r.emit(1, [&] { return einsum({r.dy, r.input(0)}, r.input(1).shape()); });
  }
}

}  // namespace ops
}  // namespace tpusim::mtf
