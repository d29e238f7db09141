// Contractions, reductions and elementwise ops: argument checks and graph nodes (lowering is elsewhere).
#include <fmt/format.h>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/op_checks.hpp"
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

static Tensor reduce_op(ReduceOp kind, const Tensor& x, const Shape& output, const std::string& name) {
  if (!output.is_subset_of(x.shape())) {
    throw InputError(fmt::format("reduce '{}': output shape {} is not a subset of the shape {} of '{}'", name,
                                 output.to_string(), x.shape().to_string(), x.name()));
  }
  if (kind == ReduceOp::sum) return einsum({x}, output, name);
  OpNode op;
  op.kind = OpKind::reduce;
  op.reduce = kind;
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), output, x.dtype(), name);
}

Tensor reduce_sum(const Tensor& x, const Shape& output, const std::string& name) {
  return reduce_op(ReduceOp::sum, x, output, name);
}
Tensor reduce_max(const Tensor& x, const Shape& output, const std::string& name) {
  return reduce_op(ReduceOp::max, x, output, name);
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

Tensor binary(BinaryOp kind, const Tensor& a, const Tensor& b, const Shape& output, const std::string& name) {
  same_graph({a, b}, to_string(kind));
  if (!a.shape().is_subset_of(output) || !b.shape().is_subset_of(output)) {
    throw InputError(fmt::format("{} '{}': shapes {} of '{}' and {} of '{}' do not broadcast to {}",
                                 to_string(kind), name, a.shape().to_string(), a.name(),
                                 b.shape().to_string(), b.name(), output.to_string()));
  }
  OpNode op;
  op.kind = OpKind::binary;
  op.binary = kind;
  op.inputs = {a.id(), b.id()};
  return a.graph().add_op(std::move(op), output, a.dtype(), name);
}

static Tensor binary_union(BinaryOp kind, const Tensor& a, const Tensor& b, const std::string& name) {
  same_graph({a, b}, to_string(kind));
  Shape out;
  try {
    out = a.shape().union_with(b.shape());
  } catch (const InputError& error) {
    throw InputError(
        fmt::format("{} '{}' of '{}' and '{}': {}", to_string(kind), name, a.name(), b.name(), error.what()));
  }
  return binary(kind, a, b, out, name);
}

Tensor add(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::add, a, b, name);
}
Tensor sub(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::sub, a, b, name);
}
Tensor mul(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::mul, a, b, name);
}
Tensor div(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::div, a, b, name);
}
Tensor maximum(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::maximum, a, b, name);
}
Tensor minimum(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::minimum, a, b, name);
}
Tensor equal(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::equal, a, b, name);
}
Tensor greater(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::greater, a, b, name);
}

static Tensor affine(const Tensor& x, double factor, double offset, const std::string& name) {
  OpNode op;
  op.kind = OpKind::scalar_affine;
  op.scale = factor;
  op.offset = offset;
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}
Tensor scale(const Tensor& x, double factor, const std::string& name) { return affine(x, factor, 0, name); }
Tensor add_scalar(const Tensor& x, double offset, const std::string& name) {
  return affine(x, 1, offset, name);
}

Tensor unary(UnaryOp kind, const Tensor& x, const std::string& name) {
  OpNode op;
  op.kind = OpKind::unary;
  op.unary = kind;
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}
Tensor neg(const Tensor& x, const std::string& name) { return unary(UnaryOp::neg, x, name); }
Tensor relu(const Tensor& x, const std::string& name) { return unary(UnaryOp::relu, x, name); }
Tensor gelu(const Tensor& x, const std::string& name) { return unary(UnaryOp::gelu, x, name); }
Tensor exp(const Tensor& x, const std::string& name) { return unary(UnaryOp::exp, x, name); }
Tensor log(const Tensor& x, const std::string& name) { return unary(UnaryOp::log, x, name); }
Tensor tanh(const Tensor& x, const std::string& name) { return unary(UnaryOp::tanh, x, name); }
Tensor sqrt(const Tensor& x, const std::string& name) { return unary(UnaryOp::sqrt, x, name); }
Tensor rsqrt(const Tensor& x, const std::string& name) { return unary(UnaryOp::rsqrt, x, name); }
Tensor square(const Tensor& x, const std::string& name) { return unary(UnaryOp::square, x, name); }
Tensor sigmoid(const Tensor& x, const std::string& name) { return unary(UnaryOp::sigmoid, x, name); }

Tensor cast(const Tensor& x, DType dtype, const std::string& name) {
  if (x.dtype() == dtype) return x;
  OpNode op;
  op.kind = OpKind::unary;
  op.unary = UnaryOp::cast;
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), dtype, name);
}

Tensor stop_gradient(const Tensor& x, const std::string& name) {
  OpNode op;
  op.kind = OpKind::stop_gradient;
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}

}  // namespace tpusim::mtf
