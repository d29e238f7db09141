#include "mesh_tf/autodiff.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>

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

// A fully sharded variable's forward gather (weight_sharding.hpp), which a backward op reads from a gather
// of its own rather than keep the forward copy alive across the step.
bool autodiff_is_forward_gather(const Graph& g, int tensor) {
  const OpNode& producer = g.op(g.tensor(tensor).producer);
  return producer.phase == Phase::forward && is_weight_sharding_rename(producer);
}

bool autodiff_reads_forward_gather(const Graph& g, int first_op) {
  for (int id = first_op; id < static_cast<int>(g.ops().size()); ++id) {
    for (const int input : g.op(id).inputs)
      if (autodiff_is_forward_gather(g, input)) return true;
  }
  return false;
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
  std::map<int, Tensor> regathered;  // forward gather tensor -> its backward gather
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
    const int first_new = static_cast<int>(g.ops().size());
    // The gradient of an op an attention kernel computes is that kernel's backward pass.
    g.set_attention_kernel(op.attention_kernel);
    GradientRequest first(g, op, it->second, wanted);
    op_row(op.kind).gradient(first);
    // FSDP's regather: a rule that read a fully sharded weight is built again on a gather made here, just
    // before the gradient ops that read it (the forward gather is then freed after its last forward reader).
    OpNode reading = op;
    std::optional<GradientRequest> again;
    if (autodiff_reads_forward_gather(g, first_new)) {
      g.discard_ops_from(first_new);
      for (int& input : reading.inputs) {
        if (!autodiff_is_forward_gather(g, input)) continue;
        auto found = regathered.find(input);
        if (found == regathered.end()) {
          const Tensor stored(&g, g.producer(Tensor(&g, input)).inputs[0]);
          const Tensor gathered =
              weight_sharding_reshape(stored, g.tensor(input).shape, stored.name() + "/regather");
          found = regathered.emplace(input, gathered).first;
        }
        input = found->second.id();
      }
      again.emplace(g, reading, it->second, wanted);
      op_row(op.kind).gradient(*again);
    }
    GradientRequest& request = again ? *again : first;
    for (auto& [index, raw] : request.contributions()) {
      const int input = op.inputs[index];
      // Contributions to an input the kernel computes are added inside it; to one from outside (q, k, v),
      // outside it.
      const int input_kernel = g.producer(Tensor(&g, input)).attention_kernel;
      g.set_attention_kernel(input_kernel == op.attention_kernel ? input_kernel : -1);
      const Tensor contribution = in_order_of(raw, g.tensor(input).shape);
      auto existing = grad.find(input);
      if (existing == grad.end()) {
        grad[input] = contribution;
      } else {
        existing->second = add(existing->second, contribution);
      }
    }
    g.set_attention_kernel(-1);
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
