#pragma once
// The one table of op kinds: for each, its name, how it lowers to local steps and collectives, and its
// gradient. An op kind is one enum value (op_node.hpp), one row here and one family file under mesh_tf/ops/
// holding its builders, checks, lowering and gradient; a missing or misplaced row does not compile.
#include <utility>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/program.hpp"

namespace tpusim::mtf {

class Lowerer;

// What a gradient rule gets: the op, dy (the gradient of the op's output, in the output's dim order) and
// which inputs want a contribution. It adds one contribution per wanted input and builds nothing else, since
// every op it builds is lowered and run. Contributions may come in any dim order: autodiff transposes them.
class GradientRequest {
 public:
  GradientRequest(Graph& graph, const OpNode& op, Tensor dy, std::vector<bool> wanted)
      : op(op), dy(dy), out(&graph, op.output), graph_(graph), wanted_(std::move(wanted)) {}

  const OpNode& op;
  const Tensor dy;
  const Tensor out;
  Tensor input(int i) const { return Tensor(&graph_, op.inputs[i]); }
  Graph& graph() const { return graph_; }
  // Builds input i's contribution only when it is wanted.
  template <class Build>
  void emit(int i, Build build) {
    if (wanted_[i]) contributions_.emplace_back(i, build());
  }
  std::vector<std::pair<int, Tensor>>& contributions() { return contributions_; }

 private:
  Graph& graph_;
  std::vector<bool> wanted_;
  std::vector<std::pair<int, Tensor>> contributions_;
};

struct OpRow {
  OpKind kind;
  const char* name;  // also the prefix of generated op names ("einsum_3")
  // A reference, not a pointer: a row without a lowering does not compile. (A constexpr check for nullptr
  // would not do: under gcc's UBSan a function's address is not a constant that can be compared with null.)
  void (&lower)(Lowerer&, const OpNode&);
  void (*gradient)(GradientRequest&);  // nullptr: passes no gradient to any input
  // Whether an op of this kind passes a gradient (some binary and unary ops do not); nullptr: it does when
  // `gradient` is set.
  bool (*passes_gradient)(const OpNode&);
  // How XLA may fuse the op's own steps (fusion.hpp); einsum decides per step from its matmul's sizes.
  FusionRole fusion;
};

const OpRow& op_row(OpKind kind);
bool passes_gradient(const OpNode& op);

}  // namespace tpusim::mtf
