#include "mesh_tf/autodiff.hpp"

#include <fmt/format.h>

#include <map>

#include "mesh_tf/op_checks.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

// Sums dy down to `shape` (the broadcast dims of a binary op's input).
Tensor reduce_to(const Tensor& dy, const Shape& shape) {
  return dy.shape() == shape ? dy : einsum({dy}, shape);
}

// A gradient rule may return its contribution with the input's dims in another order (a binary op's output
// takes the union of its operands' orders). Consumers such as reshape read a gradient as raw memory in its
// tensor's order, so every contribution is transposed to the exact shape of the tensor it belongs to.
Tensor in_order_of(const Tensor& contribution, const Shape& shape) {
  if (contribution.shape() == shape) return contribution;
  TPUSIM_CHECK(contribution.shape().is_subset_of(shape) && shape.is_subset_of(contribution.shape()));
  return einsum({contribution}, shape);
}

// Whether `op` passes a gradient to its inputs: false for sources, comparisons, index ops, random
// masks, stop_gradient and the derivative-only unaries (their derivative is zero or not needed).
bool passes_gradient(const OpNode& op) {
  switch (op.kind) {
    case OpKind::einsum:
    case OpKind::scalar_affine:
    case OpKind::reduce:
    case OpKind::reshape:
    case OpKind::shift:
    case OpKind::cumsum:
    case OpKind::concat:
    case OpKind::slice:
    case OpKind::pad:
      return true;
    case OpKind::binary:
      return op.binary != BinaryOp::equal && op.binary != BinaryOp::greater;
    case OpKind::unary:
      return op.unary != UnaryOp::step && op.unary != UnaryOp::gelu_grad;
    default:
      return false;
  }
}

// The gradient contributions of one op to the inputs marked in `wanted`: (input index, gradient) pairs. Only
// the wanted contributions are built, so no op computes a gradient that nothing reads.
std::vector<std::pair<int, Tensor>> op_gradients(Graph& g, const OpNode& op, const Tensor& dy,
                                                 const std::vector<bool>& wanted) {
  auto in = [&](int i) { return Tensor(&g, op.inputs[i]); };
  const Tensor out(&g, op.output);
  std::vector<std::pair<int, Tensor>> grads;
  // Builds input i's contribution only when it is wanted: an unwanted gradient would be lowered and run.
  auto emit = [&](int i, const auto& build) {
    if (wanted[i]) grads.emplace_back(i, build());
  };
  switch (op.kind) {
    case OpKind::einsum:
      if (op.inputs.size() == 1) {
        emit(0, [&] { return einsum({dy}, in(0).shape()); });
      } else {
        emit(0, [&] { return einsum({dy, in(1)}, in(0).shape()); });
        emit(1, [&] { return einsum({dy, in(0)}, in(1).shape()); });
      }
      break;
    case OpKind::binary: {
      const Tensor a = in(0), b = in(1);
      switch (op.binary) {
        case BinaryOp::add:
          emit(0, [&] { return reduce_to(dy, a.shape()); });
          emit(1, [&] { return reduce_to(dy, b.shape()); });
          break;
        case BinaryOp::sub:
          emit(0, [&] { return reduce_to(dy, a.shape()); });
          emit(1, [&] { return neg(reduce_to(dy, b.shape())); });
          break;
        case BinaryOp::mul:
          emit(0, [&] { return einsum({dy, b}, a.shape()); });
          emit(1, [&] { return einsum({dy, a}, b.shape()); });
          break;
        case BinaryOp::div:
          emit(0, [&] { return reduce_to(div(dy, b), a.shape()); });
          emit(1, [&] { return neg(reduce_to(div(mul(dy, out), b), b.shape())); });
          break;
        case BinaryOp::maximum:
        case BinaryOp::minimum: {
          const Tensor from_a = equal(out, a);  // built only when some input wants a gradient (caller)
          emit(0, [&] { return reduce_to(mul(dy, from_a), a.shape()); });
          emit(1, [&] { return reduce_to(mul(dy, add_scalar(neg(from_a), 1)), b.shape()); });
          break;
        }
        case BinaryOp::equal:
        case BinaryOp::greater:
          break;
      }
      break;
    }
    case OpKind::unary: {
      const Tensor x = in(0);
      switch (op.unary) {
        case UnaryOp::neg:
          emit(0, [&] { return neg(dy); });
          break;
        case UnaryOp::relu:
          emit(0, [&] { return mul(dy, unary(UnaryOp::step, x)); });
          break;
        case UnaryOp::gelu:
          emit(0, [&] { return mul(dy, unary(UnaryOp::gelu_grad, x)); });
          break;
        case UnaryOp::step:
        case UnaryOp::gelu_grad:
          break;  // zero almost everywhere; second derivatives are not needed
        case UnaryOp::exp:
          emit(0, [&] { return mul(dy, out); });
          break;
        case UnaryOp::log:
          emit(0, [&] { return div(dy, x); });
          break;
        case UnaryOp::tanh:
          emit(0, [&] { return mul(dy, add_scalar(neg(square(out)), 1)); });
          break;
        case UnaryOp::sqrt:
          emit(0, [&] { return div(scale(dy, 0.5), out); });
          break;
        case UnaryOp::rsqrt:
          emit(0, [&] { return mul(scale(dy, -0.5), mul(out, square(out))); });
          break;
        case UnaryOp::square:
          emit(0, [&] { return mul(dy, scale(x, 2)); });
          break;
        case UnaryOp::reciprocal:
          emit(0, [&] { return neg(mul(dy, square(out))); });
          break;
        case UnaryOp::sigmoid:
          emit(0, [&] { return mul(dy, mul(out, add_scalar(neg(out), 1))); });
          break;
        case UnaryOp::cast:
          emit(0, [&] { return cast(dy, x.dtype()); });
          break;
      }
      break;
    }
    case OpKind::scalar_affine:
      emit(0, [&] { return scale(dy, op.scale); });
      break;
    case OpKind::reduce:  // max (sums are einsums)
      emit(0, [&] { return mul(dy, equal(in(0), out)); });
      break;
    case OpKind::reshape:
      emit(0, [&] { return reshape(dy, in(0).shape()); });
      break;
    case OpKind::shift:
      emit(0, [&] { return shift(dy, op.dim, -op.begin, op.flag); });
      break;
    case OpKind::concat: {
      std::int64_t begin = 0;
      for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        const auto size = in(static_cast<int>(i)).dim(op.dim).size;
        emit(static_cast<int>(i), [&] { return slice(dy, op.dim, begin, size); });
        begin += size;
      }
      break;
    }
    case OpKind::slice: {
      const auto total = in(0).dim(op.dim).size;
      emit(0, [&] { return pad(dy, op.dim, op.begin, total - op.begin - op.amount); });
      break;
    }
    case OpKind::pad:
      emit(0, [&] { return slice(dy, op.dim, op.begin, in(0).dim(op.dim).size); });
      break;
    case OpKind::cumsum:
      // x_j reaches the outputs on its far side: those after j (forward) or before j (reverse), and j
      // itself unless exclusive. That is the cumsum of dy in the opposite direction, equally exclusive.
      emit(0, [&] { return op.reverse ? cumsum(dy, op.dim, op.flag) : reverse_cumsum(dy, op.dim, op.flag); });
      break;
    default:
      break;  // sources, stop_gradient, indices, random masks and assign pass no gradient
  }
  return grads;
}

}  // namespace

std::vector<Tensor> gradients(const std::vector<Tensor>& ys, const std::vector<Tensor>& grad_ys,
                              const std::vector<Tensor>& xs) {
  std::vector<Tensor> all = ys;
  all.insert(all.end(), grad_ys.begin(), grad_ys.end());
  all.insert(all.end(), xs.begin(), xs.end());
  Graph& g = same_graph(all, "gradients");
  if (ys.size() != grad_ys.size()) throw InputError("gradients: need one grad_y per y");
  for (std::size_t i = 0; i < ys.size(); ++i) {
    if (ys[i].shape() != grad_ys[i].shape()) {
      throw InputError(fmt::format("gradients: grad_y {} of '{}' does not match its shape {}",
                                   grad_ys[i].shape().to_string(), ys[i].name(), ys[i].shape().to_string()));
    }
  }
  const Phase saved = g.phase();
  g.set_phase(Phase::backward);
  // Only tensors on a path from some x to some y, along edges that carry a gradient, get one: a tensor that
  // depends on no x (a data input, a one-hot, an MoE dispatch mask) or that no y depends on would be a
  // gradient nothing reads. Ops are in topological order and each has one output, so one sweep each way.
  const int n = static_cast<int>(g.tensors().size());
  const int last_op = g.tensor(n - 1).producer;
  std::vector<bool> from_x(n, false), to_y(n, false);
  for (const auto& x : xs) from_x[x.id()] = true;
  for (int id = 0; id <= last_op; ++id) {
    const OpNode& op = g.op(id);
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      if (from_x[op.inputs[i]] && passes_gradient(op)) from_x[op.output] = true;
    }
  }
  for (const auto& y : ys) to_y[y.id()] = true;
  for (int id = last_op; id >= 0; --id) {
    const OpNode& op = g.op(id);
    if (!to_y[op.output]) continue;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      if (passes_gradient(op)) to_y[op.inputs[i]] = true;
    }
  }
  auto needs_gradient = [&](int tensor) { return from_x[tensor] && to_y[tensor]; };

  std::map<int, Tensor> grad;
  for (std::size_t i = 0; i < ys.size(); ++i) {
    if (!needs_gradient(ys[i].id())) continue;
    auto it = grad.find(ys[i].id());
    grad[ys[i].id()] = it == grad.end() ? grad_ys[i] : add(it->second, grad_ys[i]);
  }
  for (int id = last_op; id >= 0; --id) {
    const OpNode op = g.op(id);  // copy: the reference would be to a node of the graph being extended
    const auto it = grad.find(op.output);
    if (it == grad.end()) continue;
    std::vector<bool> wanted(op.inputs.size(), false);
    bool any = false;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      wanted[i] = needs_gradient(op.inputs[i]) && passes_gradient(op);
      any = any || wanted[i];
    }
    if (!any) continue;
    for (auto& [index, raw] : op_gradients(g, op, it->second, wanted)) {
      const int input = op.inputs[index];
      const Tensor contribution = in_order_of(raw, g.tensor(input).shape);
      auto existing = grad.find(input);
      if (existing == grad.end()) {
        grad[input] = contribution;
      } else {
        existing->second = add(existing->second, contribution);
      }
    }
  }
  std::vector<Tensor> out;
  for (const auto& x : xs) {
    const auto it = grad.find(x.id());
    out.push_back(it != grad.end() ? it->second : g.fill(x.shape(), 0, x.dtype()));
  }
  g.set_phase(saved);
  return out;
}

std::vector<Tensor> gradients(const Tensor& loss, const std::vector<Tensor>& xs) {
  if (loss.shape().rank() != 0) {
    throw InputError(fmt::format("gradients: loss '{}' must be a scalar, has shape {}", loss.name(),
                                 loss.shape().to_string()));
  }
  // The seed d loss / d loss = 1 belongs to the backward pass (it is not a forward activation kept for it).
  Graph& g = loss.graph();
  const Phase saved = g.phase();
  g.set_phase(Phase::backward);
  const Tensor seed = g.fill(Shape{}, 1, loss.dtype());
  g.set_phase(saved);
  return gradients({loss}, {seed}, xs);
}

}  // namespace tpusim::mtf
