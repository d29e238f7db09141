#include "workloads/flop_accounting.hpp"

namespace tpusim::workloads {

bool is_matmul(const mtf::Graph& graph, const mtf::OpNode& op) {
  // A convolution and its two adjoints are matrix products of windows (im2col) and filters.
  if (op.kind == mtf::OpKind::conv || op.kind == mtf::OpKind::conv_transpose ||
      op.kind == mtf::OpKind::conv_filter_gradient)
    return true;
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

FlopBreakdown flop_breakdown(const mtf::Graph& graph, const mtf::Counters& counters) {
  FlopBreakdown breakdown;
  for (const auto& cost : counters.ops) {
    if (cost.op < 0) continue;
    if (is_matmul(graph, graph.op(cost.op))) {
      breakdown.matmul_flops_per_core += cost.flops_per_core;
    } else {
      breakdown.other_flops_per_core += cost.flops_per_core;
    }
  }
  return breakdown;
}

}  // namespace tpusim::workloads
