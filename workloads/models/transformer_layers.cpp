#include "workloads/models/transformer_layers.hpp"

#include <cmath>

namespace tpusim::workloads {

using mtf::Shape;
using mtf::Tensor;

TransformerDims::TransformerDims(const ModelConfig& m)
    : batch("batch", m.batch),
      length("length", std::max<std::int64_t>(m.length, 1)),
      memory_length("memory_length", std::max<std::int64_t>(m.length, 1)),
      d_model("d_model", m.d_model),
      d_ff("d_ff", m.d_ff),
      heads("heads", std::max<std::int64_t>(m.heads, 1)),
      d_kv("d_kv", std::max<std::int64_t>(m.d_kv, 1)),
      vocab("vocab", std::max<std::int64_t>(m.vocab, 1)),
      activations(m.activation_dtype),
      dropout_rate(m.dropout) {}

Shape TransformerDims::lead(const std::vector<mtf::Dimension>& dims) const {
  std::vector<mtf::Dimension> all = leading;
  all.insert(all.end(), dims.begin(), dims.end());
  return Shape(all);
}

namespace {

// A sublayer's variable: `stacked` dims in front, made once when the dims share variables.
Tensor layer_variable(mtf::Graph& graph, const TransformerDims& dims, const std::string& name,
                      const Shape& shape, const mtf::Initializer& init) {
  if (dims.shared_variables) {
    const auto found = dims.shared_variables->find(name);
    if (found != dims.shared_variables->end()) return found->second;
  }
  std::vector<mtf::Dimension> all = dims.stacked;
  all.insert(all.end(), shape.dims().begin(), shape.dims().end());
  const Tensor made = graph.variable(name, Shape(all), init);
  if (dims.shared_variables) dims.shared_variables->emplace(name, made);
  return made;
}

Tensor layer_weight(mtf::Graph& graph, const TransformerDims& dims, const std::string& name,
                    const Shape& shape, std::int64_t fan_in) {
  if (dims.stacked.empty() && !dims.shared_variables) return weight(graph, name, shape, fan_in);
  return layer_variable(graph, dims, name, shape,
                        mtf::Initializer::normal(static_cast<float>(1.0 / std::sqrt(double(fan_in)))));
}

}  // namespace

Tensor dropout(const Tensor& x, const TransformerDims& dims, const std::string& name) {
  if (dims.dropout_rate == 0) return x;
  std::uint64_t seed = 1469598103934665603ull;  // FNV-1a of the name: each site its own mask
  for (const char c : name) seed = (seed ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return mtf::dropout(x, 1 - dims.dropout_rate, seed, name);
}

Tensor weight(mtf::Graph& graph, const std::string& name, const Shape& shape, std::int64_t fan_in) {
  return graph.variable(name, shape,
                        mtf::Initializer::normal(static_cast<float>(1.0 / std::sqrt(double(fan_in)))));
}

Tensor bias(mtf::Graph& graph, const std::string& name, const Shape& shape) {
  return graph.variable(name, shape, mtf::Initializer::zeros());
}

Tensor layer_norm(mtf::Graph& graph, const Tensor& x, const TransformerDims& dims, const std::string& scope) {
  if (!dims.stacked.empty() || dims.shared_variables) {
    // A stacked scale [stage, d_model] is no [d_model] for mtf::layer_norm: it multiplies the normalised x
    // afterwards, the same product mtf::layer_norm takes last.
    const Tensor scale = layer_variable(graph, dims, scope + "/layer_norm_scale", Shape{dims.d_model},
                                        mtf::Initializer::constant(1));
    return mtf::mul(mtf::layer_norm(x, dims.d_model.name, Tensor(), Tensor(), 1e-6, scope + "/layer_norm"),
                    scale);
  }
  const Tensor scale =
      graph.variable(scope + "/layer_norm_scale", Shape{dims.d_model}, mtf::Initializer::constant(1));
  return mtf::layer_norm(x, dims.d_model.name, scale, Tensor(), 1e-6, scope + "/layer_norm");
}

Tensor full_causal_mask(const Tensor& mask, const TransformerDims& d) {
  return mtf::broadcast(mask, d.lead({d.batch, d.heads, d.length, d.memory_length}), "causal_mask_full");
}

Tensor attention(mtf::Graph& graph, const Tensor& x, const Tensor& memory, const Tensor& mask,
                 const TransformerDims& dims, const std::string& scope, ProjectionBiases biases) {
  const auto& d = dims;
  const auto biased = [&](const Tensor& projected, const std::string& name) {
    if (biases == ProjectionBiases::none) return projected;
    const Shape bias_shape = projected.shape().minus({d.batch.name, d.length.name, d.memory_length.name});
    return mtf::add(projected, bias(graph, scope + "/" + name + "_bias", bias_shape));
  };
  const Shape projection{d.d_model, d.heads, d.d_kv};
  const Tensor wq = layer_weight(graph, d, scope + "/q", projection, d.d_model.size);
  const Tensor wk = layer_weight(graph, d, scope + "/k", projection, d.d_model.size);
  const Tensor wv = layer_weight(graph, d, scope + "/v", projection, d.d_model.size);
  const Tensor wo =
      layer_weight(graph, d, scope + "/o", Shape{d.heads, d.d_kv, d.d_model}, d.heads.size * d.d_kv.size);

  const Tensor keys_from = mtf::rename(memory, d.length.name, d.memory_length.name, scope + "/memory");
  // Scaling q (not the logits) keeps the scaled tensor [batch, length, heads, d_kv] small.
  const Tensor q = mtf::scale(
      biased(mtf::einsum({x, wq}, d.lead({d.batch, d.length, d.heads, d.d_kv}), scope + "/q_proj"), "q"),
      1.0 / std::sqrt(double(d.d_kv.size)));
  const Tensor k = biased(
      mtf::einsum({keys_from, wk}, d.lead({d.batch, d.memory_length, d.heads, d.d_kv}), scope + "/k_proj"),
      "k");
  const Tensor v = biased(
      mtf::einsum({keys_from, wv}, d.lead({d.batch, d.memory_length, d.heads, d.d_kv}), scope + "/v_proj"),
      "v");
  Tensor logits =
      mtf::einsum({q, k}, d.lead({d.batch, d.heads, d.length, d.memory_length}), scope + "/logits");
  if (mask.valid()) logits = mtf::add(logits, mask, scope + "/masked_logits");
  const Tensor weights =
      dropout(mtf::softmax(logits, d.memory_length.name, scope + "/weights"), d, scope + "/weights_dropout");
  const Tensor heads_out =
      mtf::einsum({weights, v}, d.lead({d.batch, d.length, d.heads, d.d_kv}), scope + "/context");
  return biased(mtf::einsum({heads_out, wo}, d.lead({d.batch, d.length, d.d_model}), scope + "/output"), "o");
}

Tensor feed_forward(mtf::Graph& graph, const Tensor& x, const TransformerDims& dims,
                    const std::string& scope) {
  const auto& d = dims;
  const Tensor w_in = layer_weight(graph, d, scope + "/in", Shape{d.d_model, d.d_ff}, d.d_model.size);
  const Tensor w_out = layer_weight(graph, d, scope + "/out", Shape{d.d_ff, d.d_model}, d.d_ff.size);
  const Tensor hidden =
      dropout(mtf::relu(mtf::einsum({x, w_in}, d.lead({d.batch, d.length, d.d_ff}), scope + "/hidden")), d,
              scope + "/hidden_dropout");
  return mtf::einsum({hidden, w_out}, d.lead({d.batch, d.length, d.d_model}), scope + "/output");
}

Tensor embed(mtf::Graph& graph, const Tensor& table, const Tensor& ids, const TransformerDims& dims,
             const std::string& scope) {
  const Tensor positions =
      weight(graph, scope + "/positional_embedding", Shape{dims.length, dims.d_model}, dims.d_model.size);
  const Tensor looked_up =
      mtf::add(mtf::gather(table, ids, dims.vocab.name, scope + "/embedding_lookup"), positions);
  return looked_up.dtype() == dims.activations ? looked_up : mtf::cast(looked_up, dims.activations);
}

Tensor softmax_loss(mtf::Graph& graph, const Tensor& x, const Tensor& target_ids, const TransformerDims& dims,
                    const std::string& scope) {
  const auto& d = dims;
  const Tensor w = weight(graph, scope + "/softmax", Shape{d.d_model, d.vocab}, d.d_model.size);
  const Tensor logits = mtf::einsum({x, w}, d.lead({d.batch, d.length, d.vocab}), scope + "/logits");
  const Tensor labels = mtf::one_hot(target_ids, d.vocab, 1, 0, scope + "/labels");
  const Tensor per_token = mtf::softmax_cross_entropy(logits, labels, d.vocab.name, scope + "/cross_entropy");
  return mtf::reduce_mean(per_token, Shape{}, "loss");
}

}  // namespace tpusim::workloads
