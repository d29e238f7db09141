// variable <- value at the end of the step: the value is laid out like the variable and committed after every
// op of the step ran, so all reads in the step see the old value.
#include <fmt/format.h>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

Tensor assign(const Tensor& variable, const Tensor& value, const std::string& name) {
  same_graph({variable, value}, "assign");
  if (variable.graph().producer(variable).kind != OpKind::variable) {
    throw InputError(fmt::format("assign '{}': '{}' is not a variable", name, variable.name()));
  }
  if (variable.shape() != value.shape()) {
    throw InputError(fmt::format("assign '{}': value {} does not match variable '{}' {}", name,
                                 value.shape().to_string(), variable.name(), variable.shape().to_string()));
  }
  OpNode op;
  op.kind = OpKind::assign;
  op.attributes = AssignAttributes{variable.id()};
  op.inputs = {value.id()};
  return variable.graph().add_op(std::move(op), value.shape(), variable.dtype(), name);
}

namespace ops {

void lower_assign(Lowerer& lowerer, const OpNode& op) {
  const int variable_value = lowerer.value_of(op.get<AssignAttributes>().target);
  const int v =
      lowerer.relayout(lowerer.input_value(op, 0), lowerer.value(variable_value).layout.mesh_dims(), op);
  lowerer.set_result(op, v);
  lowerer.add_assignment(variable_value, v);
}

}  // namespace ops
}  // namespace tpusim::mtf
