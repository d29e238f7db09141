// Mixture-of-experts dispatch and combine (top-1 routing with capacity, as Mesh-TensorFlow's MoE layer),
// built from primitives: their gradients and their communication (one alltoall each way) follow from them.
#include <fmt/format.h>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

MoeDispatch moe_dispatch(const Tensor& tokens, const Tensor& gate_logits, const std::string& group_dim,
                         const std::string& gate_experts_dim, const std::string& experts_dim,
                         const Dimension& capacity, const std::string& name) {
  Graph& graph = same_graph({tokens, gate_logits}, "moe_dispatch");
  const Dimension& group = tokens.dim(group_dim);
  const Dimension& gate_experts = gate_logits.dim(gate_experts_dim);
  if (gate_logits.shape().rank() != 3 || tokens.shape().rank() != 3 || gate_logits.shape()[0] != group ||
      tokens.shape()[0] != group || gate_logits.shape()[1] != tokens.shape()[1]) {
    throw InputError(
        fmt::format("moe_dispatch '{}': expects tokens [group, position, d_model] and gate_logits [group, "
                    "position, experts]; "
                    "got {} and {}",
                    name, tokens.shape().to_string(), gate_logits.shape().to_string()));
  }
  const Dimension position = tokens.shape()[1];
  const Dimension d_model = tokens.shape()[2];
  const Shape per_token{group, position};

  const Tensor gates = softmax(gate_logits, gate_experts_dim, name + "_gates");
  const Tensor top1 = argmax_one_hot(stop_gradient(gate_logits), gate_experts_dim, name + "_top1");
  const Tensor gate_value = reduce_sum(mul(gates, top1), per_token, name + "_gate");
  // Position of each token in its expert's buffer: tokens routed earlier in the group come first.
  const Tensor rank_in_expert = mul(cumsum(top1, position.name, /*exclusive=*/true, name + "_cumsum"), top1);
  const Tensor slot = reduce_sum(rank_in_expert, per_token, name + "_slot");
  const Tensor fits = greater(graph.fill(Shape{}, static_cast<float>(capacity.size)), slot);
  const Tensor routed = mul(top1, fits, name + "_routed");  // tokens over capacity are dropped
  const Tensor dispatch =
      mul(routed, one_hot(slot, capacity, 1, 0, name + "_slot_one_hot"), name + "_dispatch");

  MoeDispatch out;
  out.group_dim = group_dim;
  out.gate_experts_dim = gate_experts_dim;
  out.experts_dim = experts_dim;
  out.combine_weights = mul(dispatch, gate_value, name + "_combine_weights");
  const Tensor gathered = einsum({cast(dispatch, tokens.dtype()), tokens},
                                 Shape{gate_experts, group, capacity, d_model}, name + "_gathered");
  const Dimension experts(experts_dim, gate_experts.size);
  const Dimension group_x(group_dim + "_x", group.size);
  out.expert_inputs = reshape(gathered, Shape{experts, group_x, capacity, d_model}, name + "_expert_inputs");
  return out;
}

Tensor moe_combine(const MoeDispatch& dispatch, const Tensor& expert_outputs, const std::string& name) {
  const Shape& s = expert_outputs.shape();
  const Shape& w = dispatch.combine_weights.shape();
  if (s.rank() != 4 || s[0].name != dispatch.experts_dim || s[1].name != dispatch.group_dim + "_x") {
    throw InputError(
        fmt::format("moe_combine '{}': expert outputs must be [{}, {}_x, capacity, d_model], got {}", name,
                    dispatch.experts_dim, dispatch.group_dim, s.to_string()));
  }
  const Tensor back = reshape(expert_outputs, Shape{w[2], w[0], s[2], s[3]}, name + "_returned");
  return einsum({cast(dispatch.combine_weights, expert_outputs.dtype()), back}, Shape{w[0], w[1], s[3]},
                name + "_combined");
}

}  // namespace tpusim::mtf
