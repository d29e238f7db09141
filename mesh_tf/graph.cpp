#include "mesh_tf/graph.hpp"

#include <fmt/format.h>

#include "mesh_tf/ops/op_families.hpp"
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

Graph::Graph(std::uint64_t seed) : seed_(seed) {}

Graph& same_graph(const std::vector<Tensor>& tensors, const std::string& op_name) {
  Graph* graph = nullptr;
  for (const auto& t : tensors) {
    if (!t.valid()) throw InputError(fmt::format("{}: an input is an empty Tensor handle", op_name));
    if (graph && &t.graph() != graph)
      throw InputError(fmt::format("{}: inputs belong to different graphs", op_name));
    graph = &t.graph();
  }
  if (!graph) throw InputError(fmt::format("{}: needs at least one input", op_name));
  return *graph;
}

Tensor Graph::add_op(OpNode op, const Shape& output_shape, DType dtype, const std::string& name_hint) {
  if (output_shape.num_elements() > kMaxTensorElements) {
    throw InputError(
        fmt::format("{} '{}': its output {} would have {} elements, more than the {} (2^48) a tensor "
                    "may have on the whole pod",
                    to_string(op.kind), name_hint, output_shape.to_string(), output_shape.num_elements(),
                    kMaxTensorElements));
  }
  op.id = static_cast<int>(ops_.size());
  op.phase = phase_;
  op.checkpoint = phase_ == Phase::forward ? checkpoint_ : -1;
  op.attention_kernel = attention_kernel_;
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

CheckpointScope::CheckpointScope(Graph& graph) : graph_(graph) {
  TPUSIM_CHECK(graph.checkpoint_ < 0);  // scopes do not nest
  graph.checkpoint_ = graph.checkpoints_++;
}

void Graph::set_attention_kernel(int kernel) {
  TPUSIM_CHECK(kernel >= -1 && kernel < static_cast<int>(attention_kernels_.size()));
  attention_kernel_ = kernel;
}

AttentionKernelScope::AttentionKernelScope(Graph& graph, AttentionKernel kernel) : graph_(graph) {
  TPUSIM_CHECK(graph.attention_kernel_ < 0);  // scopes do not nest
  graph.attention_kernels_.push_back(std::move(kernel));
  graph.attention_kernel_ = static_cast<int>(graph.attention_kernels_.size()) - 1;
}

AttentionKernelScope::~AttentionKernelScope() { graph_.attention_kernel_ = -1; }

void Graph::discard_ops_from(int first_op) {
  TPUSIM_CHECK(first_op >= 0 && first_op <= static_cast<int>(ops_.size()));
  while (static_cast<int>(ops_.size()) > first_op) {
    names_.erase(ops_.back().name);
    ops_.pop_back();
    tensors_.pop_back();
  }
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
