#include "workloads/flop_accounting.hpp"

#include <algorithm>

namespace tpusim::workloads {

std::vector<bool> live_ops(const mtf::Graph& graph, const std::vector<mtf::Tensor>& fetches) {
  const auto& ops = graph.ops();
  std::vector<bool> live_tensor(graph.tensors().size(), false), live(ops.size(), false);
  for (const auto& fetch : fetches) live_tensor[fetch.id()] = true;
  // Ops come in topological order (an op's inputs exist before it), so one backward sweep suffices.
  for (int id = static_cast<int>(ops.size()) - 1; id >= 0; --id) {
    const auto& op = ops[id];
    if (op.kind == mtf::OpKind::assign) live_tensor[op.output] = true;
    if (!live_tensor[op.output]) continue;
    live[id] = true;
    for (const int input : op.inputs) live_tensor[input] = true;
    if (op.target >= 0) live_tensor[op.target] = true;
  }
  return live;
}

bool is_matmul(const mtf::Graph& graph, const mtf::OpNode& op) {
  if (op.kind != mtf::OpKind::einsum || op.inputs.size() != 2) return false;
  const auto& a = graph.tensor(op.inputs[0]).shape;
  const auto& b = graph.tensor(op.inputs[1]).shape;
  const auto& out = graph.tensor(op.output).shape;
  bool contracts = false, a_has_own = false, b_has_own = false;
  for (const auto& dim : a.dims()) {
    if (!b.contains(dim.name)) a_has_own = true;
    if (b.contains(dim.name) && !out.contains(dim.name)) contracts = true;
  }
  for (const auto& dim : b.dims()) {
    if (!a.contains(dim.name)) b_has_own = true;
  }
  return contracts && a_has_own && b_has_own;
}

FlopBreakdown flop_breakdown(const mtf::Graph& graph, const mtf::Counters& counters,
                             const std::vector<mtf::Tensor>& fetches) {
  const auto live = live_ops(graph, fetches);
  FlopBreakdown breakdown;
  for (const auto& cost : counters.ops) {
    if (cost.op < 0) continue;
    if (!live[cost.op]) {
      breakdown.dead_flops_per_core += cost.flops_per_core;
    } else if (is_matmul(graph, graph.op(cost.op))) {
      breakdown.matmul_flops_per_core += cost.flops_per_core;
    } else {
      breakdown.other_flops_per_core += cost.flops_per_core;
    }
  }
  return breakdown;
}

}  // namespace tpusim::workloads
