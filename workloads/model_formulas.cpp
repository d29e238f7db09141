#include "workloads/model_formulas.hpp"

namespace tpusim::workloads {
namespace {

std::int64_t attention_params(const ModelConfig& m) { return 4 * m.d_model * m.heads * m.d_kv; }
std::int64_t ffn_params(const ModelConfig& m) { return 2 * m.d_model * m.d_ff; }
std::int64_t moe_params(const ModelConfig& m) {
  return m.d_model * m.experts + 2 * m.experts * m.d_model * m.d_ff;
}

}  // namespace

std::int64_t parameter_count(const ModelConfig& m) {
  const std::int64_t d = m.d_model;
  switch (m.kind) {
    case ModelKind::mlp:
      return m.layers * ffn_params(m);
    case ModelKind::transformer_lm:
      return m.layers * (attention_params(m) + ffn_params(m) + 2 * d) + d + m.length * d + 2 * m.vocab * d;
    case ModelKind::encoder_decoder:
      return m.layers * (attention_params(m) + ffn_params(m) + 2 * d) + d +
             m.decoder_layers * (2 * attention_params(m) + ffn_params(m) + 3 * d) + d + 2 * m.length * d +
             2 * m.vocab * d;
    case ModelKind::moe_transformer:
      return m.layers * (attention_params(m) + moe_params(m) + 2 * d) + d + m.length * d + 2 * m.vocab * d;
  }
  return 0;
}

std::int64_t paper_parameter_count(const ModelConfig& m) {
  switch (m.kind) {
    case ModelKind::mlp:
      return m.layers * ffn_params(m);
    case ModelKind::transformer_lm:
      return m.layers * (attention_params(m) + ffn_params(m)) + 2 * m.vocab * m.d_model;
    case ModelKind::encoder_decoder:
      return m.layers * (attention_params(m) + ffn_params(m)) +
             m.decoder_layers * (2 * attention_params(m) + ffn_params(m)) + 2 * m.vocab * m.d_model;
    case ModelKind::moe_transformer:
      return m.layers * (attention_params(m) + 2 * m.experts * m.d_model * m.d_ff) + 2 * m.vocab * m.d_model;
  }
  return 0;
}

}  // namespace tpusim::workloads

namespace tpusim::workloads {

std::int64_t expert_capacity(const ModelConfig& model);  // models/moe_transformer.cpp

double training_flops_per_step(const ModelConfig& m) {
  const double b = double(m.batch), l = double(m.length), d = double(m.d_model), f = double(m.d_ff);
  const double h = double(m.heads), k = double(m.d_kv), V = double(m.vocab), E = double(m.experts);
  const double T = b * l, L = double(m.layers);
  const double attention = 8 * T * d * h * k + 4 * b * l * l * h * k;
  const double vocab_terms = 4 * T * V * d + 6 * T * d * V;
  switch (m.kind) {
    case ModelKind::mlp:
      return 12 * L * b * d * f - 2 * b * d * f;
    case ModelKind::transformer_lm:
      return vocab_terms + L * 3 * (attention + 4 * T * d * f);
    case ModelKind::encoder_decoder:
      return vocab_terms + 4 * T * V * d + L * 3 * (attention + 4 * T * d * f) +
             double(m.decoder_layers) * 3 * (2 * attention + 4 * T * d * f);
    case ModelKind::moe_transformer: {
      const double C = double(expert_capacity(m));
      return vocab_terms + L * (3 * attention + 6 * T * d * E + 4 * T * E * C * d + 12 * E * b * C * d * f +
                                6 * T * E * C * d);
    }
  }
  return 0;
}

NumericsCost full_numerics_cost(const ModelConfig& m, const TrainingConfig& training) {
  // The engine keeps one copy of each distinct slice, so replicas cost nothing: the host holds the model once
  // (parameters, gradients, up to two optimizer moments) and the activations of the whole batch.
  const double state_copies = training.optimizer == OptimizerKind::adam ? 4 : 3;
  const double T = double(m.batch) * double(std::max<std::int64_t>(m.length, 1));
  const double layers = double(m.layers + m.decoder_layers);
  const double per_token_per_layer = 12.0 * double(m.d_model) + 3.0 * double(m.d_ff) +
                                     4.0 * double(m.heads) * double(std::max<std::int64_t>(m.length, 1));
  NumericsCost cost;
  cost.flops_per_step = training_flops_per_step(m);
  cost.host_bytes = 4.0 * (state_copies * double(parameter_count(m)) + T * layers * per_token_per_layer +
                           4.0 * T * double(std::max<std::int64_t>(m.vocab, 1)));
  return cost;
}

}  // namespace tpusim::workloads
