#include "mesh_tf/liveness.hpp"

#include <string>

namespace tpusim::mtf {

std::vector<bool> live_ops(const Graph& graph, const std::vector<Tensor>& outputs) {
  const auto& ops = graph.ops();
  std::vector<bool> live_tensor(graph.tensors().size(), false), live(ops.size(), false);
  for (const auto& output : outputs) live_tensor[output.id()] = true;
  // Ops come in topological order (an op's inputs exist before it), so one backward sweep suffices.
  for (int id = static_cast<int>(ops.size()) - 1; id >= 0; --id) {
    const OpNode& op = ops[id];
    if (op.kind == OpKind::assign) live_tensor[op.output] = true;
    if (!live_tensor[op.output]) continue;
    live[id] = true;
    for (const int input : op.inputs) live_tensor[input] = true;
    if (op.kind == OpKind::assign) live_tensor[op.get<AssignAttributes>().target] = true;
  }
  return live;
}

std::vector<std::string> dead_op_names(const Graph& graph, const std::vector<Tensor>& outputs, Phase phase) {
  const auto live = live_ops(graph, outputs);
  std::vector<std::string> names;
  for (const auto& op : graph.ops()) {
    if (op.phase == phase && !live[op.id]) names.push_back(op.name);
  }
  return names;
}

}  // namespace tpusim::mtf
