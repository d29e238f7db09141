// Lowering of sources, contractions and elementwise ops.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/random.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

void Lowerer::lower_op(const OpNode& op) {
  switch (op.kind) {
    case OpKind::input:
    case OpKind::variable:
    case OpKind::fill:
    case OpKind::random_mask:
      lower_source(op);
      break;
    case OpKind::einsum:
      lower_einsum(op);
      break;
    case OpKind::binary:
      lower_binary(op);
      break;
    case OpKind::unary:
    case OpKind::scalar_affine:
      lower_unary(op);
      break;
    case OpKind::stop_gradient:
      program_.raw_value_of_tensor[op.output] = program_.raw_value_of_tensor[op.inputs[0]];
      break;
    case OpKind::reduce:
      lower_reduce_max(op);
      break;
    case OpKind::reshape:
      lower_reshape(op);
      break;
    case OpKind::shift:
      lower_shift(op);
      break;
    case OpKind::one_hot:
      lower_one_hot(op);
      break;
    case OpKind::concat:
    case OpKind::slice:
    case OpKind::pad:
    case OpKind::cumsum:
    case OpKind::argmax_one_hot:
      lower_axis_op(op);
      break;
    case OpKind::assign:
      lower_assign(op);
      break;
  }
}

void Lowerer::lower_source(const OpNode& op) {
  const TensorNode& t = graph_.tensor(op.output);
  const int out = new_value(t.id, t.name, t.shape, t.dtype, rule_mesh_dims(t.id, op.unsplittable));
  program_.raw_value_of_tensor[t.id] = out;
  if (op.kind == OpKind::input || op.kind == OpKind::variable) return;  // data held by the executor
  const Value& o = value(out);
  const std::int64_t elems = o.slice_elements;
  const int slices = o.num_slices;
  if (op.kind == OpKind::fill) {
    const float fill_value = static_cast<float>(op.offset);
    add_compute(op, op.name, {}, out, 0, [=](Store& s) { s[out].assign(elems * slices, fill_value); });
    return;
  }
  // random_mask: 1/keep with probability keep, keyed by the global element index.
  const Value vo = o;
  const MeshShape mesh = mesh_;
  const double keep = op.scale;
  const std::uint64_t seed = op.seed;
  add_compute(op, op.name, {}, out, static_cast<double>(elems), [=](Store& s) {
    s[out].resize(elems * slices);
    const int rank = vo.shape.rank();
    for (int key = 0; key < slices; ++key) {
      const auto coords = vo.coords_of_key(key, mesh);
      std::vector<std::int64_t> index(rank, 0);
      float* dst = s[out].data() + key * elems;
      for (std::int64_t i = 0; i < elems; ++i) {
        std::int64_t global = 0;
        for (int d = 0; d < rank; ++d) global = global * vo.shape[d].size + vo.offset(d, coords) + index[d];
        dst[i] =
            uniform01(seed, static_cast<std::uint64_t>(global)) < keep ? static_cast<float>(1 / keep) : 0.0f;
        for (int d = rank - 1; d >= 0; --d) {
          if (++index[d] < vo.local_sizes[d]) break;
          index[d] = 0;
        }
      }
    }
  });
}

void Lowerer::lower_einsum(const OpNode& op) {
  const TensorNode& t = graph_.tensor(op.output);
  const std::vector<int> out_dims = rule_mesh_dims(t.id);
  std::vector<int> ins;
  for (std::size_t i = 0; i < op.inputs.size(); ++i) ins.push_back(input_value(op, static_cast<int>(i)));
  // A mesh dim may carry only one dimension name across the inputs and the output; otherwise the local
  // products would miss cross terms. Keep the output's (or the first) and gather the others.
  for (int m = 0; m < mesh_.rank(); ++m) {
    std::string keep;
    const int out_dim = std::find(out_dims.begin(), out_dims.end(), m) - out_dims.begin();
    if (out_dim < t.shape.rank()) keep = t.shape[out_dim].name;
    for (auto& v : ins) {
      const Value in = value(v);  // a copy: relayout appends values
      for (int d = 0; d < in.shape.rank(); ++d) {
        if (in.mesh_dims[d] != m) continue;
        if (keep.empty()) keep = in.shape[d].name;
        if (in.shape[d].name != keep) {
          std::vector<int> target = in.mesh_dims;
          target[d] = -1;
          v = relayout(v, target, op);
        }
      }
    }
  }
  // Summed dims that stay split leave partial sums over their mesh dims.
  std::set<int> pending;
  for (const int v : ins) {
    const Value& in = value(v);
    for (int d = 0; d < in.shape.rank(); ++d) {
      const int m = in.mesh_dims[d];
      if (m >= 0 && mesh_.dim_size(m) > 1 && !t.shape.contains(in.shape[d].name)) pending.insert(m);
    }
  }
  const int out = new_value(t.id, t.name, t.shape, t.dtype, out_dims, {pending.begin(), pending.end()});
  program_.raw_value_of_tensor[t.id] = out;
  const Value& o = value(out);
  std::vector<kernels::LocalDims> in_dims;
  for (const int v : ins) in_dims.push_back(local_dims(value(v)));
  auto plan = std::make_shared<kernels::EinsumPlan>(in_dims, local_dims(o));
  auto maps = key_maps(o, ins);
  std::vector<std::int64_t> in_elems;
  for (const int v : ins) in_elems.push_back(value(v).slice_elements);
  const std::int64_t out_elems = o.slice_elements;
  const int slices = o.num_slices;
  const int step = add_compute(op, op.name, ins, out, plan->flops(), [=](Store& s) {
    s[out].resize(out_elems * slices);
    thread_local std::vector<float> scratch;
    std::vector<const float*> ptrs(ins.size());
    for (int key = 0; key < slices; ++key) {
      for (std::size_t i = 0; i < ins.size(); ++i) ptrs[i] = s[ins[i]].data() + maps[i][key] * in_elems[i];
      plan->run(ptrs, s[out].data() + key * out_elems, scratch);
    }
  });
  program_.steps[step].is_einsum = true;
  program_.steps[step].executed_flops = plan->flops() * slices;
}

void Lowerer::lower_binary(const OpNode& op) {
  const TensorNode& t = graph_.tensor(op.output);
  const std::vector<int> out_dims = rule_mesh_dims(t.id);
  int a = input_value(op, 0, true), b = input_value(op, 1, true);
  std::vector<int> pending;
  const bool linear = op.binary == BinaryOp::add || op.binary == BinaryOp::sub;
  if (linear && !value(a).pending.empty() && value(a).pending == value(b).pending &&
      value(a).shape == t.shape && value(b).shape == t.shape) {
    pending = value(a).pending;  // lazy allreduce: add partial sums, reduce once later
  } else {
    a = force(a, op);
    b = force(b, op);
  }
  const int out = new_value(t.id, t.name, t.shape, t.dtype, out_dims, pending);
  program_.raw_value_of_tensor[t.id] = out;
  const Value& o = value(out);
  const auto od = local_dims(o);
  const auto sa = kernels::broadcast_strides(local_dims(value(a)), od);
  const auto sb = kernels::broadcast_strides(local_dims(value(b)), od);
  auto maps = key_maps(o, {a, b});
  const std::int64_t ea = value(a).slice_elements, eb = value(b).slice_elements, eo = o.slice_elements;
  const int slices = o.num_slices;
  const BinaryOp kind = op.binary;
  const auto sizes = od.sizes;
  add_compute(op, op.name, {a, b}, out, static_cast<double>(eo), [=](Store& s) {
    s[out].resize(eo * slices);
    for (int key = 0; key < slices; ++key) {
      kernels::binary(kind, s[a].data() + maps[0][key] * ea, sa, s[b].data() + maps[1][key] * eb, sb,
                      s[out].data() + key * eo, sizes);
    }
  });
}

void Lowerer::lower_unary(const OpNode& op) {
  const TensorNode& t = graph_.tensor(op.output);
  const int x = input_value(op, 0);
  const Value in = value(x);  // a copy: new_value appends values
  const int out = new_value(t.id, t.name, t.shape, t.dtype, in.mesh_dims);
  program_.raw_value_of_tensor[t.id] = out;
  const std::int64_t n = in.slice_elements * in.num_slices;
  const std::int64_t per_core = in.slice_elements;
  const bool is_affine = op.kind == OpKind::scalar_affine;
  const UnaryOp kind = op.unary;
  const double scale_v = op.scale, offset_v = op.offset;
  add_compute(op, op.name, {x}, out, static_cast<double>(per_core), [=](Store& s) {
    s[out].resize(n);
    if (is_affine) {
      kernels::affine(s[x].data(), s[out].data(), n, scale_v, offset_v);
    } else {
      kernels::unary(kind, s[x].data(), s[out].data(), n);
    }
  });
}

void Lowerer::lower_reduce_max(const OpNode& op) {
  const TensorNode& t = graph_.tensor(op.output);
  const int x = input_value(op, 0);
  const Value in = value(x);  // a copy: new_value appends values
  std::vector<int> reduced_mesh_dims;
  for (int d = 0; d < in.shape.rank(); ++d) {
    const int m = in.mesh_dims[d];
    if (m >= 0 && mesh_.dim_size(m) > 1 && !t.shape.contains(in.shape[d].name))
      reduced_mesh_dims.push_back(m);
  }
  const int local = new_value(t.id, t.name, t.shape, t.dtype, rule_mesh_dims(t.id), reduced_mesh_dims);
  const Value& o = value(local);
  auto maps = key_maps(o, {x});
  const auto xd = local_dims(in), od = local_dims(o);
  const std::int64_t ex = in.slice_elements, eo = o.slice_elements;
  const int slices = o.num_slices;
  add_compute(op, op.name, {x}, local, static_cast<double>(ex), [=](Store& s) {
    s[local].resize(eo * slices);
    for (int key = 0; key < slices; ++key) {
      kernels::reduce_max(s[x].data() + maps[0][key] * ex, xd, s[local].data() + key * eo, od);
    }
  });
  program_.raw_value_of_tensor[t.id] =
      reduced_mesh_dims.empty() ? local
                                : allreduce(local, reduced_mesh_dims, sim::ReduceOp::max, op, "reduce_max");
}

void Lowerer::lower_assign(const OpNode& op) {
  const int variable_value = program_.raw_value_of_tensor[op.target];
  const int v = relayout(input_value(op, 0), value(variable_value).mesh_dims, op);
  program_.raw_value_of_tensor[op.output] = v;
  program_.assignments.push_back({variable_value, v});
}

}  // namespace tpusim::mtf
