#include "mesh_tf/graph.hpp"

#include <fmt/format.h>

#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

Graph& Tensor::graph() const {
  if (!graph_) throw InputError("use of an empty Tensor handle (not produced by a Graph)");
  return *graph_;
}
const Shape& Tensor::shape() const { return graph().tensor(id_).shape; }
const std::string& Tensor::name() const { return graph().tensor(id_).name; }
DType Tensor::dtype() const { return graph().tensor(id_).dtype; }
const Dimension& Tensor::dim(const std::string& name) const {
  return shape().at(name, "tensor '" + this->name() + "'");
}

const char* to_string(OpKind kind) {
  static const char* names[] = {"input",          "variable",      "fill",          "einsum",  "binary",
                                "unary",          "scalar_affine", "reduce",        "reshape", "one_hot",
                                "argmax_one_hot", "cumsum",        "random_mask",   "shift",   "concat",
                                "slice",          "pad",           "stop_gradient", "assign"};
  return names[static_cast<int>(kind)];
}
const char* to_string(BinaryOp op) {
  static const char* names[] = {"add", "sub", "mul", "div", "maximum", "minimum", "equal", "greater"};
  return names[static_cast<int>(op)];
}
const char* to_string(UnaryOp op) {
  static const char* names[] = {"neg",  "relu", "step",  "gelu",   "gelu_grad",  "exp",     "log",
                                "tanh", "sqrt", "rsqrt", "square", "reciprocal", "sigmoid", "cast"};
  return names[static_cast<int>(op)];
}

Graph::Graph(std::uint64_t seed) : seed_(seed) {}

Tensor Graph::add_op(OpNode op, const Shape& output_shape, DType dtype, const std::string& name_hint) {
  op.id = static_cast<int>(ops_.size());
  op.phase = phase_;
  // A user's name is kept as given when it is free; generated and repeated names get the op id appended.
  op.name = name_hint.empty() ? fmt::format("{}_{}", to_string(op.kind), op.id) : name_hint;
  if (!names_.insert(op.name).second) {
    op.name = fmt::format("{}_{}", op.name, op.id);
    names_.insert(op.name);
  }
  TensorNode tensor;
  tensor.id = static_cast<int>(tensors_.size());
  tensor.name = op.name;
  tensor.shape = output_shape;
  tensor.dtype = dtype;
  tensor.producer = op.id;
  op.output = tensor.id;
  for (const int input : op.inputs) TPUSIM_CHECK(input >= 0 && input < tensor.id);
  ops_.push_back(std::move(op));
  tensors_.push_back(std::move(tensor));
  return Tensor(this, tensors_.back().id);
}

namespace {
void check_unique_source(const Graph& graph, const std::string& name) {
  for (const auto& op : graph.ops()) {
    if ((op.kind == OpKind::input || op.kind == OpKind::variable) && op.name == name) {
      throw InputError(fmt::format("graph already has an input or variable called '{}'", name));
    }
  }
}
}  // namespace

Tensor Graph::input(const std::string& name, const Shape& shape, DType dtype) {
  check_unique_source(*this, name);
  Dimension(name, 1);  // validates the name
  OpNode op;
  op.kind = OpKind::input;
  return add_op(std::move(op), shape, dtype, name);
}

Tensor Graph::variable(const std::string& name, const Shape& shape, Initializer init, DType dtype) {
  check_unique_source(*this, name);
  if (name.empty()) throw InputError("a variable needs a name");
  OpNode op;
  op.kind = OpKind::variable;
  op.init = init;
  // The seed of a variable depends on its name, not on creation order, so initial values are reproducible.
  std::uint64_t h = 1469598103934665603ull ^ seed_;
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  op.seed = h;
  return add_op(std::move(op), shape, dtype, name);
}

Tensor Graph::fill(const Shape& shape, float value, DType dtype) {
  OpNode op;
  op.kind = OpKind::fill;
  op.offset = value;
  return add_op(std::move(op), shape, dtype, "");
}

std::vector<Tensor> Graph::variables() const {
  std::vector<Tensor> out;
  for (const auto& op : ops_) {
    if (op.kind == OpKind::variable) out.emplace_back(const_cast<Graph*>(this), op.output);
  }
  return out;
}

std::vector<Tensor> Graph::inputs() const {
  std::vector<Tensor> out;
  for (const auto& op : ops_) {
    if (op.kind == OpKind::input) out.emplace_back(const_cast<Graph*>(this), op.output);
  }
  return out;
}

Tensor Graph::find(const std::string& tensor_name) const {
  std::vector<std::string> names;
  for (const auto& tensor : tensors_) {
    if (tensor.name == tensor_name) return Tensor(const_cast<Graph*>(this), tensor.id);
    names.push_back(tensor.name);
  }
  throw InputError(
      fmt::format("graph has no tensor called '{}'{}", tensor_name, did_you_mean(tensor_name, names)));
}

}  // namespace tpusim::mtf
