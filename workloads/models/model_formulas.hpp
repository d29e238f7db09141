#pragma once
// Closed forms of the models in workloads/models/: parameter counts, training FLOPs per step and per-core
// memory. They are written from the model definitions, independently of the engine, so tests can hold the
// engine's counts against them.
//
// The models (no biases, pre-layer-norm with a scale vector, as Mesh-TensorFlow's transformer):
//   d = d_model, f = d_ff, h = heads, k = d_kv, V = vocab, E = experts, L layers, kv = kv_heads (h unless
//   grouped-query attention)
//   attention sublayer: q [d, h, k], k, v [d, kv, k] and o [h, k, d]   2d(h + kv)k params
//   FFN sublayer: in [d, f], out [f, d]                             2df (swiglu: gate and up [d, f], 3df)
//   MoE sublayer: router [d, E], in [E, d, f], out [E, f, d]         dE + 2Edf
//                 (top-1, capacity C per sequence)
//   layer norm (or RMSNorm) scale [d] before each sublayer and at the end of each stack; positional
//   embedding [l, d] per stack (none with rotary positions)
//   transformer_lm:   embedding [V, d] + L (attention + FFN) + softmax [d, V]
//   encoder_decoder:  one embedding [V, d] shared by both stacks (joint vocabulary) + L_enc (attention + FFN)
//                     + L_dec (self-attention + cross-attention + FFN) + softmax [d, V]
//   moe_transformer:  transformer_lm with every FFN replaced by a MoE sublayer
//   mlp:              L blocks relu(x . in[d, f]) . out[f, d], trained to reproduce its input (autoencoder)
//   bert:             post-layer-norm, biases on every dense layer, layer norms with scale and bias [d]:
//                     embedding [V, d] (tied with the masked-LM logits) + token types [2, d] + positions
//                     [l, d] + layer norm 2d + L (attention 4dhk + 3hk + d, GELU FFN 2df + f + d, 2 layer
//                     norms 4d) + pooler d^2 + d + next sentence 2d + 2 + masked-LM transform d^2 + d, its
//                     layer norm 2d and output bias V (BERT-Large: 336,226,108; without the two heads,
//                     335,141,888, the count of BertModel)
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

// A tensor of a model and its elements on the whole pod.
struct TensorSize {
  std::string tensor;  // "[batch, length, d_ff]"
  double elements;
};

// The closed forms of one model kind (formulas below); its row of models/model_kinds.hpp holds them.
struct ModelFormulas {
  std::int64_t (*parameters)(const ModelConfig& model);
  std::int64_t (*paper_parameters)(const ModelConfig& model);
  double (*training_flops)(const ModelConfig& model);
  // Its largest tensors, which the config bounds so that the engine's 64-bit counts cannot overflow.
  std::vector<TensorSize> (*largest_tensors)(const ModelConfig& model);
  // Elements of the activations a step keeps for its backward pass, whole pod, for the host memory of full
  // numerics; nullptr: the Transformers' estimate from d_model, d_ff, heads and length.
  double (*activation_elements)(const ModelConfig& model);
};
extern const ModelFormulas kMlpFormulas;
extern const ModelFormulas kTransformerLmFormulas;
extern const ModelFormulas kEncoderDecoderFormulas;
extern const ModelFormulas kMoeTransformerFormulas;
extern const ModelFormulas kBertFormulas;
extern const ModelFormulas kResNetFormulas;  // image_model_formulas.cpp, which gives them
extern const ModelFormulas kUNetFormulas;

// The formulas of any model, through its kind's row:
std::int64_t parameter_count(const ModelConfig& model);
// The paper's published formula (mesh_tf/README.md, The paper's figures): attention and FFN matrices and
// the two vocab matrices only (no layer norms or positional embeddings; for the encoder-decoder, decoder
// layers count self- and cross-attention; BERT's one vocab matrix is tied). It reproduces the papers' tables.
std::int64_t paper_parameter_count(const ModelConfig& model);

// Matmul FLOPs of one training step, whole pod: the two-input contractions of the forward pass (projections,
// attention logits and context, FFN, embedding lookup as a one-hot einsum, softmax, MoE routing, dispatch,
// experts and combine), and of the backward pass the gradients that reach a variable: 2x the forward einsum
// when both inputs need a gradient, 1x when one input is data (embedding one-hot, MoE dispatch mask, the
// MLP's input). Elementwise work (layer norm, softmax, optimizer) is not included. With T = batch * length
// tokens:
//   transformer_lm  = 4TVd + 6TdV + L * 3 * (4Td(h + kv)k + 4 b l^2 h k + 2nTdf), n = 2 matrices (3 swiglu);
//                     attention counted whole, a causal mask's skipped half included (the fused kernel's
//                     executed FLOPs leave it out: mesh_tf/attention_kernel.hpp)
//   encoder_decoder = 8TVd + 6TdV + L_enc * 3 * (A + 4Tdf) + L_dec * 3 * (2A + 4Tdf),
//                     A = 8Tdhk + 4 b l^2 h k
//   moe_transformer = 4TVd + 6TdV + L * (3A + 6TdE + 4TECd + 12EbCdf + 6TECd),  C = capacity per sequence
//   mlp             = 12 L b d f - 2 b d f
//   bert            = 4TVd + 8Td + L * 3 * (A + 4Tdf) + 4bPld + 6bPd^2 + 6bPVd + 6bd^2 + 12bd,
//                     P = predictions per sequence (the token-type lookup [2, d]; picking the P positions
//                     as a one-hot product over length; the MLM transform and logits; pooler and NSP)
//   resnet, unet: the sum over convolutions of image_model_formulas.cpp
double training_flops_per_step(const ModelConfig& model);

// Limits of a full-numerics run: every virtual core computes for real on this machine, every step, so the
// limit is on the whole run (steps x the work of a step), not on one step.
struct NumericsCost {
  static constexpr double kMaxFlopsPerRun = 2e12;
  static constexpr double kMaxHostBytes = 6.0 * (1ull << 30);
  double flops_per_step = 0;  // whole pod
  int steps = 1;
  double host_bytes = 0;  // all cores' parameters, gradients, optimizer state and activations
  double flops_per_run() const { return flops_per_step * steps; }
  bool fits() const { return flops_per_run() <= kMaxFlopsPerRun && host_bytes <= kMaxHostBytes; }
  // Why it does not fit, in a sentence: "full numerics of this run would need ...".
  std::string problem() const;
};
// The limits, as a config key's range states them.
std::string full_numerics_limits();
NumericsCost full_numerics_cost(const ModelConfig& model, const TrainingConfig& training);

}  // namespace tpusim::workloads
