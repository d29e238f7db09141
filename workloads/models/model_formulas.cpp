#include "workloads/models/model_formulas.hpp"

#include <fmt/format.h>

#include <cmath>

#include "topologies/support/units.hpp"
#include "workloads/models/model_kinds.hpp"

namespace tpusim::workloads {

std::int64_t expert_capacity(const ModelConfig& model);  // models/moe_transformer.cpp

namespace {

// q and o [d, h, k], k and v [d, kv, k] (kv = h but under grouped-query attention).
std::int64_t attention_params(const ModelConfig& m) {
  return 2 * m.d_model * (m.heads + m.key_value_heads()) * m.d_kv;
}
std::int64_t ffn_matrices(const ModelConfig& m) { return m.mlp == FeedForwardKind::swiglu ? 3 : 2; }
std::int64_t ffn_params(const ModelConfig& m) { return ffn_matrices(m) * m.d_model * m.d_ff; }
std::int64_t moe_params(const ModelConfig& m) {
  return m.d_model * m.experts + 2 * m.experts * m.d_model * m.d_ff;
}

// The sizes the FLOP formulas of the Transformers share (model_formulas.hpp).
struct FlopTerms {
  explicit FlopTerms(const ModelConfig& m)
      : b(double(m.batch)),
        l(double(m.length)),
        d(double(m.d_model)),
        f(double(m.d_ff)),
        h(double(m.heads)),
        k(double(m.d_kv)),
        V(double(m.vocab)),
        E(double(m.experts)),
        T(b * l),
        L(double(m.layers)),
        attention(4 * T * d * (h + double(m.key_value_heads())) * k + 4 * b * l * l * h * k),
        ffn(2 * double(ffn_matrices(m)) * T * d * f),
        vocab_terms(4 * T * V * d + 6 * T * d * V) {}
  double b, l, d, f, h, k, V, E, T, L, attention, ffn, vocab_terms;
};

// The tensors every model has; the MLP has no length (l = 1).
std::vector<TensorSize> dense_tensors(const ModelConfig& m, double l) {
  const double b = double(m.batch), d = double(m.d_model), f = double(m.d_ff);
  return {{"[batch, length, d_model]", b * l * d}, {"[batch, length, d_ff]", b * l * f}, {"[d_model, d_ff]", d * f}};
}

std::vector<TensorSize> transformer_tensors(const ModelConfig& m) {
  const double b = double(m.batch), l = double(m.length), d = double(m.d_model);
  const double h = double(m.heads), k = double(m.d_kv), V = double(m.vocab);
  std::vector<TensorSize> tensors = dense_tensors(m, l);
  tensors.insert(tensors.end(), {{"[batch, length, vocab]", b * l * V},
                                 {"[vocab, d_model]", V * d},
                                 {"[d_model, heads, d_kv]", d * h * k},
                                 {"[batch, length, heads, d_kv]", b * l * h * k},
                                 {"[batch, heads, length, length]", b * h * l * l}});
  return tensors;
}

// --- mlp
std::int64_t mlp_parameters(const ModelConfig& m) { return m.layers * ffn_params(m); }
double mlp_flops(const ModelConfig& m) {
  const FlopTerms t(m);
  return 12 * t.L * t.b * t.d * t.f - 2 * t.b * t.d * t.f;
}
std::vector<TensorSize> mlp_tensors(const ModelConfig& m) { return dense_tensors(m, 1); }

// --- transformer_lm
std::int64_t lm_parameters(const ModelConfig& m) {
  const std::int64_t d = m.d_model;
  const std::int64_t positions = m.positions == PositionKind::learned ? m.length * d : 0;
  return m.layers * (attention_params(m) + ffn_params(m) + 2 * d) + d + positions + 2 * m.vocab * d;
}
std::int64_t lm_paper_parameters(const ModelConfig& m) {
  return m.layers * (attention_params(m) + ffn_params(m)) + 2 * m.vocab * m.d_model;
}
double lm_flops(const ModelConfig& m) {
  const FlopTerms t(m);
  return t.vocab_terms + t.L * 3 * (t.attention + t.ffn);
}

// --- encoder_decoder
std::int64_t encoder_decoder_parameters(const ModelConfig& m) {
  const std::int64_t d = m.d_model;
  return m.layers * (attention_params(m) + ffn_params(m) + 2 * d) + d +
         m.decoder_layers * (2 * attention_params(m) + ffn_params(m) + 3 * d) + d + 2 * m.length * d +
         2 * m.vocab * d;
}
std::int64_t encoder_decoder_paper_parameters(const ModelConfig& m) {
  return m.layers * (attention_params(m) + ffn_params(m)) +
         m.decoder_layers * (2 * attention_params(m) + ffn_params(m)) + 2 * m.vocab * m.d_model;
}
double encoder_decoder_flops(const ModelConfig& m) {
  const FlopTerms t(m);
  return t.vocab_terms + 4 * t.T * t.V * t.d + t.L * 3 * (t.attention + 4 * t.T * t.d * t.f) +
         double(m.decoder_layers) * 3 * (2 * t.attention + 4 * t.T * t.d * t.f);
}

// --- moe_transformer
std::int64_t moe_parameters(const ModelConfig& m) {
  const std::int64_t d = m.d_model;
  return m.layers * (attention_params(m) + moe_params(m) + 2 * d) + d + m.length * d + 2 * m.vocab * d;
}
std::int64_t moe_paper_parameters(const ModelConfig& m) {
  return m.layers * (attention_params(m) + 2 * m.experts * m.d_model * m.d_ff) + 2 * m.vocab * m.d_model;
}
double moe_flops(const ModelConfig& m) {
  const FlopTerms t(m);
  const double C = double(expert_capacity(m));
  return t.vocab_terms + t.L * (3 * t.attention + 6 * t.T * t.d * t.E + 4 * t.T * t.E * C * t.d +
                                12 * t.E * t.b * C * t.d * t.f + 6 * t.T * t.E * C * t.d);
}
std::vector<TensorSize> moe_tensors(const ModelConfig& m) {
  const double b = double(m.batch), l = double(m.length), d = double(m.d_model), f = double(m.d_ff);
  const double E = double(m.experts);
  // expert_capacity() casts this to an integer, so it is bounded here first.
  const double capacity = std::ceil(m.capacity_factor * l / E);
  std::vector<TensorSize> tensors = transformer_tensors(m);
  tensors.insert(tensors.end(), {{"[experts, d_model, d_ff]", E * d * f},
                                 {"[batch, length, experts, capacity]", b * l * E * capacity},
                                 {"[experts, batch, capacity, d_ff]", E * b * capacity * f}});
  return tensors;
}

// --- bert (biases on every dense layer; layer norms with a scale and a bias)
constexpr std::int64_t kTokenTypes = 2;  // segments A and B
std::int64_t bert_parameters(const ModelConfig& m) {
  const std::int64_t d = m.d_model, layer_norm = 2 * d;
  const std::int64_t embeddings = m.vocab * d + kTokenTypes * d + m.length * d + layer_norm;
  const std::int64_t attention = attention_params(m) + 3 * m.heads * m.d_kv + d;
  const std::int64_t ffn = ffn_params(m) + m.d_ff + d;
  const std::int64_t pooler = d * d + d, next_sentence = 2 * d + 2;
  const std::int64_t masked_lm = d * d + d + layer_norm + m.vocab;  // transform, its layer norm, output bias
  return embeddings + m.layers * (attention + ffn + 2 * layer_norm) + pooler + next_sentence + masked_lm;
}
std::int64_t bert_paper_parameters(const ModelConfig& m) {
  return m.layers * (attention_params(m) + ffn_params(m)) + m.vocab * m.d_model;
}
double bert_flops(const ModelConfig& m) {
  const FlopTerms t(m);
  const double P = double(m.predictions), types = double(kTokenTypes);
  const double encoder =
      4 * t.T * t.V * t.d + 4 * t.T * types * t.d + t.L * 3 * (t.attention + 4 * t.T * t.d * t.f);
  const double masked_lm = 4 * t.b * P * t.l * t.d + 6 * t.b * P * t.d * t.d + 6 * t.b * P * t.V * t.d;
  return encoder + masked_lm + 6 * t.b * t.d * t.d + 6 * t.b * t.d * 2;
}
std::vector<TensorSize> bert_tensors(const ModelConfig& m) {
  const double b = double(m.batch), P = double(m.predictions);
  std::vector<TensorSize> tensors = transformer_tensors(m);
  tensors.insert(tensors.end(), {{"[batch, predictions, vocab]", b * P * double(m.vocab)},
                                 {"[batch, predictions, length]", b * P * double(m.length)}});
  return tensors;
}

}  // namespace

const ModelFormulas kMlpFormulas = {mlp_parameters, mlp_parameters, mlp_flops, mlp_tensors, nullptr};
const ModelFormulas kTransformerLmFormulas = {lm_parameters, lm_paper_parameters, lm_flops,
                                              transformer_tensors, nullptr};
const ModelFormulas kEncoderDecoderFormulas = {encoder_decoder_parameters, encoder_decoder_paper_parameters,
                                               encoder_decoder_flops, transformer_tensors, nullptr};
const ModelFormulas kMoeTransformerFormulas = {moe_parameters, moe_paper_parameters, moe_flops, moe_tensors,
                                               nullptr};
const ModelFormulas kBertFormulas = {bert_parameters, bert_paper_parameters, bert_flops, bert_tensors,
                                     nullptr};

std::int64_t parameter_count(const ModelConfig& m) { return model_kind(m.kind).formulas.parameters(m); }
std::int64_t paper_parameter_count(const ModelConfig& m) {
  return model_kind(m.kind).formulas.paper_parameters(m);
}
double training_flops_per_step(const ModelConfig& m) { return model_kind(m.kind).formulas.training_flops(m); }

NumericsCost full_numerics_cost(const ModelConfig& m, const TrainingConfig& training) {
  // The engine keeps one copy of each distinct slice, so replicas cost nothing: the host holds the model once
  // (parameters, gradients, up to two optimizer moments) and the activations of the whole batch.
  const bool two_moments =
      training.optimizer == OptimizerKind::adam || training.optimizer == OptimizerKind::lamb;
  const double state_copies = two_moments ? 4 : 3;
  NumericsCost cost;
  cost.flops_per_step = training_flops_per_step(m);
  cost.steps = training.steps;
  const auto activation_elements = model_kind(m.kind).formulas.activation_elements;
  if (activation_elements) {
    // Each convolution's output, its batch norm, its relu and their gradients: about four copies.
    cost.host_bytes = 4.0 * (state_copies * double(parameter_count(m)) + 4.0 * activation_elements(m));
    return cost;
  }
  const double T = double(m.batch) * double(std::max<std::int64_t>(m.length, 1));
  const double layers = double(m.layers + m.decoder_layers);
  const double per_token_per_layer = 12.0 * double(m.d_model) + 3.0 * double(m.d_ff) +
                                     4.0 * double(m.heads) * double(std::max<std::int64_t>(m.length, 1));
  cost.host_bytes = 4.0 * (state_copies * double(parameter_count(m)) + T * layers * per_token_per_layer +
                           4.0 * T * double(std::max<std::int64_t>(m.vocab, 1)));
  return cost;
}

std::string full_numerics_limits() {
  return fmt::format("at most {:.3g} FLOPs over the run (steps x FLOPs per step) and {} of host memory",
                     NumericsCost::kMaxFlopsPerRun, format_bytes(NumericsCost::kMaxHostBytes));
}

std::string NumericsCost::problem() const {
  return fmt::format(
      "full numerics of this run would need about {:.3g} FLOPs ({} step{} of {:.3g}) and {} of host memory; a "
      "full run is limited to {} (use numerics: timing, fewer steps or a smaller model)",
      flops_per_run(), steps, steps == 1 ? "" : "s", flops_per_step, format_bytes(host_bytes),
      full_numerics_limits());
}

}  // namespace tpusim::workloads
