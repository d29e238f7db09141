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
      kv_heads("kv_heads", std::max<std::int64_t>(m.key_value_heads(), 1)),
      q_per_kv("q_per_kv", std::max<std::int64_t>(m.heads, 1) / std::max<std::int64_t>(m.key_value_heads(), 1)),
      activations(m.activation_dtype),
      dropout_rate(m.dropout),
      mlp(m.mlp),
      norm(m.norm),
      positions(m.positions),
      attention_kind(m.attention),
      flash_block_q(m.flash_block_q),
      flash_block_kv(m.flash_block_kv) {}

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
  const auto normalise = [&](const Tensor& scale) {
    if (dims.norm == NormKind::rms_norm) return mtf::rms_norm(x, dims.d_model.name, scale, 1e-6, scope + "/rms_norm");
    return mtf::layer_norm(x, dims.d_model.name, scale, Tensor(), 1e-6, scope + "/layer_norm");
  };
  if (!dims.stacked.empty() || dims.shared_variables) {
    // A stacked scale [stage, d_model] is no [d_model] for mtf::layer_norm: it multiplies the normalised x
    // afterwards, the same product mtf::layer_norm takes last.
    const Tensor scale = layer_variable(graph, dims, scope + "/layer_norm_scale", Shape{dims.d_model},
                                        mtf::Initializer::constant(1));
    return mtf::mul(normalise(Tensor()), scale);
  }
  const Tensor scale =
      graph.variable(scope + "/layer_norm_scale", Shape{dims.d_model}, mtf::Initializer::constant(1));
  return normalise(scale);
}

Tensor full_causal_mask(const Tensor& mask, const TransformerDims& d) {
  const Shape logits = d.grouped() ? d.lead({d.batch, d.kv_heads, d.q_per_kv, d.length, d.memory_length})
                                   : d.lead({d.batch, d.heads, d.length, d.memory_length});
  return mtf::broadcast(mask, logits, "causal_mask_full");
}

DecoderInputs decoder_inputs(mtf::Graph& graph, TransformerDims& d) {
  DecoderInputs made;
  d.causal = true;
  if (d.attention_kind == AttentionKind::dense) {
    const Tensor mask = graph.input("causal_mask", Shape{d.length, d.memory_length});
    made.full_mask = full_causal_mask(mask, d);
    made.inputs.push_back({mask, InputRole::causal_mask});
  }
  if (d.positions == PositionKind::rotary) {
    d.rotary_cos = graph.input("rotary_cos", Shape{d.length, d.d_kv});
    d.rotary_sin = graph.input("rotary_sin", Shape{d.length, d.d_kv});
    made.inputs.push_back({d.rotary_cos, InputRole::rotary_cos});
    made.inputs.push_back({d.rotary_sin, InputRole::rotary_sin});
  }
  return made;
}

namespace {

// x * cos + rotate_half(x) * sin along d_kv, the tables' length dim renamed to x's.
Tensor rotate(const Tensor& x, const TransformerDims& d, const std::string& length, const std::string& name) {
  const Tensor cos = mtf::rename(d.rotary_cos, d.length.name, length, name + "/cos");
  const Tensor sin = mtf::rename(d.rotary_sin, d.length.name, length, name + "/sin");
  return mtf::add(mtf::mul(x, cos), mtf::mul(mtf::rotate_half(x, d.d_kv.name), sin), name);
}

// The logits, softmax (its weights dropped out) and context of q over k and v, with `mask` added where valid.
Tensor attend(mtf::Graph& graph, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
              const std::vector<mtf::Dimension>& q_heads, const TransformerDims& d, const std::string& scope) {
  std::vector<mtf::Dimension> logits_dims = {d.batch};
  logits_dims.insert(logits_dims.end(), q_heads.begin(), q_heads.end());
  logits_dims.insert(logits_dims.end(), {d.length, d.memory_length});
  std::vector<mtf::Dimension> context_dims = {d.batch, d.length};
  context_dims.insert(context_dims.end(), q_heads.begin(), q_heads.end());
  context_dims.push_back(d.d_kv);
  Tensor logits = mtf::einsum({q, k}, d.lead(logits_dims), scope + "/logits");
  if (mask.valid()) logits = mtf::add(logits, mask, scope + "/masked_logits");
  const Tensor weights =
      dropout(mtf::softmax(logits, d.memory_length.name, scope + "/weights"), d, scope + "/weights_dropout");
  return mtf::einsum({weights, v}, d.lead(context_dims), scope + "/context");
}

}  // namespace

Tensor attention(mtf::Graph& graph, const Tensor& x, const Tensor& memory, const Tensor& mask,
                 const TransformerDims& dims, const std::string& scope, ProjectionBiases biases) {
  const auto& d = dims;
  const auto biased = [&](const Tensor& projected, const std::string& name) {
    if (biases == ProjectionBiases::none) return projected;
    const Shape bias_shape = projected.shape().minus({d.batch.name, d.length.name, d.memory_length.name});
    return mtf::add(projected, bias(graph, scope + "/" + name + "_bias", bias_shape));
  };
  // Grouped-query attention: each of the kv_heads key and value heads serves q_per_kv query heads.
  const std::vector<mtf::Dimension> q_heads =
      d.grouped() ? std::vector<mtf::Dimension>{d.kv_heads, d.q_per_kv} : std::vector<mtf::Dimension>{d.heads};
  const mtf::Dimension& kv_heads = d.grouped() ? d.kv_heads : d.heads;
  const auto shape = [](std::vector<mtf::Dimension> first, const std::vector<mtf::Dimension>& middle,
                        const std::vector<mtf::Dimension>& last) {
    first.insert(first.end(), middle.begin(), middle.end());
    first.insert(first.end(), last.begin(), last.end());
    return first;
  };
  std::int64_t q_head_count = 1;
  for (const auto& h : q_heads) q_head_count *= h.size;
  const Tensor wq = layer_weight(graph, d, scope + "/q", Shape(shape({d.d_model}, q_heads, {d.d_kv})), d.d_model.size);
  const Tensor wk = layer_weight(graph, d, scope + "/k", Shape{d.d_model, kv_heads, d.d_kv}, d.d_model.size);
  const Tensor wv = layer_weight(graph, d, scope + "/v", Shape{d.d_model, kv_heads, d.d_kv}, d.d_model.size);
  const Tensor wo = layer_weight(graph, d, scope + "/o", Shape(shape({}, q_heads, {d.d_kv, d.d_model})),
                                 q_head_count * d.d_kv.size);

  const Tensor keys_from = mtf::rename(memory, d.length.name, d.memory_length.name, scope + "/memory");
  Tensor q = biased(mtf::einsum({x, wq}, d.lead(shape({d.batch, d.length}, q_heads, {d.d_kv})), scope + "/q_proj"),
                    "q");
  if (d.positions == PositionKind::rotary) q = rotate(q, d, d.length.name, scope + "/q_rotary");
  // Scaling q (not the logits) keeps the scaled tensor [batch, length, heads, d_kv] small.
  q = mtf::scale(q, 1.0 / std::sqrt(double(d.d_kv.size)));
  Tensor k = biased(
      mtf::einsum({keys_from, wk}, d.lead({d.batch, d.memory_length, kv_heads, d.d_kv}), scope + "/k_proj"), "k");
  if (d.positions == PositionKind::rotary) k = rotate(k, d, d.memory_length.name, scope + "/k_rotary");
  const Tensor v = biased(
      mtf::einsum({keys_from, wv}, d.lead({d.batch, d.memory_length, kv_heads, d.d_kv}), scope + "/v_proj"), "v");
  Tensor heads_out;
  if (d.attention_kind == AttentionKind::flash) {
    const mtf::AttentionKernelScope kernel(
        graph, mtf::AttentionKernel(scope, d.length, d.memory_length, d.causal, d.flash_block_q, d.flash_block_kv));
    const Tensor on_core_mask =
        d.causal ? mtf::causal_mask(graph, d.length, d.memory_length, scope + "/causal_mask") : Tensor();
    heads_out = attend(graph, q, k, v, on_core_mask, q_heads, d, scope);
  } else {
    heads_out = attend(graph, q, k, v, mask, q_heads, d, scope);
  }
  return biased(mtf::einsum({heads_out, wo}, d.lead({d.batch, d.length, d.d_model}), scope + "/output"), "o");
}

Tensor feed_forward(mtf::Graph& graph, const Tensor& x, const TransformerDims& dims,
                    const std::string& scope) {
  const auto& d = dims;
  const Tensor w_in = layer_weight(graph, d, scope + "/in", Shape{d.d_model, d.d_ff}, d.d_model.size);
  const Tensor w_out = layer_weight(graph, d, scope + "/out", Shape{d.d_ff, d.d_model}, d.d_ff.size);
  const Shape hidden_shape = d.lead({d.batch, d.length, d.d_ff});
  const Tensor pre = mtf::einsum({x, w_in}, hidden_shape, scope + "/hidden");
  Tensor activated;
  switch (d.mlp) {
    case FeedForwardKind::relu:
      activated = mtf::relu(pre);
      break;
    case FeedForwardKind::gelu:
      activated = mtf::gelu(pre);
      break;
    case FeedForwardKind::swiglu: {
      // w_in is the gate, silu(z) = z * sigmoid(z), times the linear unit of its own matrix.
      const Tensor w_up = layer_weight(graph, d, scope + "/up", Shape{d.d_model, d.d_ff}, d.d_model.size);
      const Tensor up = mtf::einsum({x, w_up}, hidden_shape, scope + "/up_proj");
      activated = mtf::mul(mtf::mul(pre, mtf::sigmoid(pre)), up, scope + "/gated");
      break;
    }
  }
  const Tensor hidden = dropout(activated, d, scope + "/hidden_dropout");
  return mtf::einsum({hidden, w_out}, d.lead({d.batch, d.length, d.d_model}), scope + "/output");
}

Tensor embed(mtf::Graph& graph, const Tensor& table, const Tensor& ids, const TransformerDims& dims,
             const std::string& scope) {
  const Tensor positions =
      dims.positions == PositionKind::learned
          ? weight(graph, scope + "/positional_embedding", Shape{dims.length, dims.d_model}, dims.d_model.size)
          : Tensor();
  Tensor looked_up = mtf::gather(table, ids, dims.vocab.name, scope + "/embedding_lookup");
  if (positions.valid()) looked_up = mtf::add(looked_up, positions);
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
