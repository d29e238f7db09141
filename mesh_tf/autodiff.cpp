#include "mesh_tf/autodiff.hpp"

#include <fmt/format.h>

#include <map>

#include "mesh_tf/op_table.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

// A gradient rule may return its contribution with the input's dims in another order (a binary op's output
// takes the union of its operands' orders). Consumers such as reshape read a gradient as raw memory in its
// tensor's order, so every contribution is transposed to the exact shape of the tensor it belongs to.
Tensor in_order_of(const Tensor& contribution, const Shape& shape) {
  if (contribution.shape() == shape) return contribution;
  TPUSIM_CHECK(contribution.shape().is_subset_of(shape) && shape.is_subset_of(contribution.shape()));
  return einsum({contribution}, shape);
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
    GradientRequest request(g, op, it->second, wanted);
    op_row(op.kind).gradient(request);
    for (auto& [index, raw] : request.contributions()) {
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
