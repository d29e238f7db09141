// The language model with every feed-forward sublayer replaced by a mixture of experts (Mesh-TensorFlow's
// MoE layer, top-1 routing): a router [d_model, experts] picks one expert per token, each sequence (group)
// sends at most `capacity` tokens to an expert, the experts (in [experts, d_model, d_ff], out [experts, d_ff,
// d_model]) run on their tokens and the outputs are combined back, weighted by the router's probability.
#include <fmt/format.h>

#include <cmath>

#include "workloads/models/model_builder.hpp"
#include "workloads/models/transformer_layers.hpp"

namespace tpusim::workloads {

using mtf::Shape;
using mtf::Tensor;

std::int64_t expert_capacity(const ModelConfig& model) {
  const double tokens_per_expert = double(model.length) / double(model.experts);
  return std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(model.capacity_factor * tokens_per_expert)));
}

namespace {

Tensor mixture_of_experts(mtf::Graph& graph, const Tensor& x, const ModelConfig& model,
                          const TransformerDims& d, const std::string& scope) {
  // The router scores experts on an unsplit dimension of its own (expert_choice): `experts` is split over the
  // mesh axis the batch uses, and one tensor cannot split two dims over one axis.
  const mtf::Dimension experts("experts", model.experts), choice("expert_choice", model.experts);
  const mtf::Dimension capacity("capacity", expert_capacity(model));
  const Tensor router = weight(graph, scope + "/router", Shape{d.d_model, choice}, d.d_model.size);
  const Tensor w_in = weight(graph, scope + "/in", Shape{experts, d.d_model, d.d_ff}, d.d_model.size);
  const Tensor w_out = weight(graph, scope + "/out", Shape{experts, d.d_ff, d.d_model}, d.d_ff.size);

  const Tensor gate_logits =
      mtf::einsum({x, router}, Shape{d.batch, d.length, choice}, scope + "/gate_logits");
  const mtf::MoeDispatch dispatch = mtf::moe_dispatch(x, gate_logits, d.batch.name, choice.name, experts.name,
                                                      capacity, scope + "/dispatch");
  const Tensor& inputs = dispatch.expert_inputs;     // [experts, batch_x, capacity, d_model]
  const mtf::Dimension group_x = inputs.shape()[1];  // a copy: adding ops may move the graph's tensors
  const Tensor hidden = dropout(
      mtf::relu(mtf::einsum({inputs, w_in}, Shape{experts, group_x, capacity, d.d_ff}, scope + "/hidden")), d,
      scope + "/hidden_dropout");
  const Tensor outputs =
      mtf::einsum({hidden, w_out}, Shape{experts, group_x, capacity, d.d_model}, scope + "/output");
  return mtf::moe_combine(dispatch, outputs, scope + "/combine");
}

}  // namespace

BuiltModel build_moe_transformer(mtf::Graph& graph, const ModelConfig& model) {
  return build_decoder_only_lm(graph, model,
                               [&](const Tensor& x, const TransformerDims& d, const std::string& scope) {
                                 return mixture_of_experts(graph, x, model, d, scope);
                               });
}

}  // namespace tpusim::workloads
