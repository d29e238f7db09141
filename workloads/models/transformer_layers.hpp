#pragma once
// The sublayers the Transformer models share, written as Mesh-TensorFlow's transformer layers: named
// dimensions (batch, length, memory_length, d_model, d_ff, heads, d_kv, vocab, experts, capacity), no biases
// (attention takes them on request, for BERT), pre-layer-norm residual blocks. The layout rules decide the
// splits; nothing here names a mesh axis.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "workloads/config/run_config.hpp"
#include "workloads/models/model_builder.hpp"

namespace tpusim::workloads {

struct TransformerDims {
  explicit TransformerDims(const ModelConfig& model);
  mtf::Dimension batch, length, memory_length, d_model, d_ff, heads, d_kv, vocab;
  // Grouped-query attention (model.kv_heads below heads): q's heads are [kv_heads, q_per_kv], k's and v's
  // [kv_heads]; otherwise both are [heads].
  mtf::Dimension kv_heads, q_per_kv;
  mtf::DType activations;
  double dropout_rate;  // model.dropout: 0 builds no dropout at all
  // The blocks' variants (config/transformer_choices.hpp) and the fused kernel's blocks.
  FeedForwardKind mlp;
  NormKind norm;
  PositionKind positions;
  AttentionKind attention_kind;
  std::int64_t flash_block_q, flash_block_kv;
  bool grouped() const { return kv_heads.size != heads.size; }
  // Rotary positions: the cos and sin of each position's angles, [length, d_kv], inputs the decoder makes
  // (decoder_inputs below).
  mtf::Tensor rotary_cos, rotary_sin;
  // Self-attention over earlier positions only: the fused kernel masks on the core (dense attention adds
  // the mask tensor it is given).
  bool causal = false;
  // Pipeline stages (pipelined_lm.hpp): dims put in front of every activation shape the sublayers build
  // (`stage` in the layer stack, `microbatches` around it), and dims put in front of every variable the
  // attention, feed-forward and layer-norm sublayers make (`stage`: the layer of every stage is one
  // variable). Empty for every unpipelined model, which then builds exactly the graph it always did.
  std::vector<mtf::Dimension> leading, stacked;
  // When set, those sublayers look their variables up here by name before making them (and record the ones
  // they make): a pipelined layer runs once per iteration on the same weights.
  std::map<std::string, mtf::Tensor>* shared_variables = nullptr;
  mtf::Shape lead(const std::vector<mtf::Dimension>& dims) const;  // leading + dims
};

// Dropout at rate dims.dropout_rate (x itself at rate 0), its mask seeded by `name`. Where the models apply
// it follows tensor2tensor's mtf_transformer_base, which sets all three rates to 0.1 (attention_dropout on
// the attention weights, relu_dropout on the feed-forward hidden, layer_prepostprocess_dropout on each
// sublayer's output before its residual add and on the embedded input), and google-research/bert's
// modeling.py (attention_probs_dropout_prob on the attention weights, hidden_dropout_prob on each sublayer's
// output before its residual add and on the embeddings): one model.dropout for all of them. Each costs a
// random mask (mesh_tf/random_bits.hpp) and a multiply forward, the multiply again backward, and the mask
// kept for the backward pass.
mtf::Tensor dropout(const mtf::Tensor& x, const TransformerDims& dims, const std::string& name);

// Variables are named "<scope>/<name>"; weights start normal with stddev 1/sqrt(fan-in).
mtf::Tensor weight(mtf::Graph& graph, const std::string& name, const mtf::Shape& shape, std::int64_t fan_in);

// x [batch, length, d_model] -> x + sublayer(layer_norm(x)); RMSNorm as dims.norm says.
mtf::Tensor layer_norm(mtf::Graph& graph, const mtf::Tensor& x, const TransformerDims& dims,
                       const std::string& scope);

// The causal mask input [length, memory_length] broadcast to the logits' shape [batch, heads, length,
// memory_length]. Adding a full-shaped mask keeps autodiff from building (and the engine from running) a
// reduction of the logits' gradient down to the mask's shape, with its allreduce over every mesh axis, that
// no variable needs.
mtf::Tensor full_causal_mask(const mtf::Tensor& mask, const TransformerDims& dims);

// What a decoder-only LM's causal self-attention reads beside its activations: the mask to add (the input
// "causal_mask" broadcast by full_causal_mask; invalid for the fused kernel, which masks on the core) and,
// with rotary positions, the inputs "rotary_cos" and "rotary_sin" it sets in `dims`. Sets dims.causal.
struct DecoderInputs {
  mtf::Tensor full_mask;
  std::vector<ModelInput> inputs;
};
DecoderInputs decoder_inputs(mtf::Graph& graph, TransformerDims& dims);

// Whether attention's projections add a bias: Mesh-TensorFlow's have none, BERT's have one each
// (modeling.py's attention_layer builds q, k and v with tf.layers.dense, whose bias is on by default, and the
// output dense in transformer_model too).
enum class ProjectionBiases { none, each };

// A variable "<name>" of `shape` that starts at zero, as tf.layers.dense's bias does.
mtf::Tensor bias(mtf::Graph& graph, const std::string& name, const mtf::Shape& shape);

// Multi-head attention of x over memory (both [batch, length, d_model]): q from x, k and v from memory
// (renamed to memory_length), softmax over memory_length, the weights dropped out (attention_dropout); mask
// (full_causal_mask) is added to the logits when valid. With ProjectionBiases::each, q, k, v ([heads, d_kv])
// and the output ([d_model]) add a bias.
mtf::Tensor attention(mtf::Graph& graph, const mtf::Tensor& x, const mtf::Tensor& memory,
                      const mtf::Tensor& mask, const TransformerDims& dims, const std::string& scope,
                      ProjectionBiases biases = ProjectionBiases::none);

// relu(x . in[d_model, d_ff]) . out[d_ff, d_model], the hidden dropped out (relu_dropout); gelu in place of
// relu, or (silu(x . gate) * x . up) . out, as dims.mlp says.
mtf::Tensor feed_forward(mtf::Graph& graph, const mtf::Tensor& x, const TransformerDims& dims,
                         const std::string& scope);

// Embedding lookup of ids [batch, length] in table [vocab, d_model] plus a learned positional embedding
// "<scope>/positional_embedding" [length, d_model] (Mesh-TensorFlow's transformer), cast to the activation
// dtype. Without positions, attention could not tell tokens apart by place (the copy task needs it). With
// rotary positions (dims.positions) there is no positional embedding: attention rotates q and k instead.
mtf::Tensor embed(mtf::Graph& graph, const mtf::Tensor& table, const mtf::Tensor& ids,
                  const TransformerDims& dims, const std::string& scope);

// Mean softmax cross-entropy of x [batch, length, d_model] . softmax[d_model, vocab] against target ids.
mtf::Tensor softmax_loss(mtf::Graph& graph, const mtf::Tensor& x, const mtf::Tensor& target_ids,
                         const TransformerDims& dims, const std::string& scope);

// The feed-forward sublayer of a decoder-only LM: dense (transformer_lm) or a mixture of experts.
using FeedForwardBlock = std::function<mtf::Tensor(const mtf::Tensor& normed, const TransformerDims& dims,
                                                   const std::string& scope)>;

// The paper's decoder-only LM around a feed-forward sublayer: token embedding, `layers` blocks of causal
// self-attention and feed_forward_block (pre-layer-norm residuals), a final layer norm and a separate
// softmax.
BuiltModel build_decoder_only_lm(mtf::Graph& graph, const ModelConfig& model,
                                 const FeedForwardBlock& feed_forward_block);

}  // namespace tpusim::workloads
