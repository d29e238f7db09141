// The identity that passes no gradient: lowered to the same value as its input, no step.
#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"

namespace tpusim::mtf {

Tensor stop_gradient(const Tensor& x, const std::string& name) {
  OpNode op;
  op.kind = OpKind::stop_gradient;
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}

namespace ops {

void lower_stop_gradient(Lowerer& lowerer, const OpNode& op) {
  lowerer.set_result(op, lowerer.input_value(op, 0, /*allow_pending=*/true));
}

}  // namespace ops
}  // namespace tpusim::mtf
