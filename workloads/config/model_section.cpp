#include "workloads/config/model_section.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "mesh_tf/graph.hpp"

namespace tpusim::workloads {
namespace {

const std::vector<std::string> kModelKinds = {"mlp", "transformer_lm", "encoder_decoder", "moe_transformer"};

ModelKind model_kind_from(const std::string& name) {
  if (name == "mlp") return ModelKind::mlp;
  if (name == "transformer_lm") return ModelKind::transformer_lm;
  if (name == "encoder_decoder") return ModelKind::encoder_decoder;
  return ModelKind::moe_transformer;
}

// The engine and the closed forms count elements, bytes and parameters in 64-bit integers: bounding the layer
// count and every tensor's elements (whole pod) keeps those sums far from overflow, and keeps the layer count
// an int. lm-s5's largest tensor, [batch, length, d_ff], has 1.7e10 elements.
constexpr std::int64_t kMaxLayers = 1000;
constexpr double kMaxTensorElements = double(mtf::Graph::kMaxTensorElements);

void check_model_fits_in_counters(const ConfigNode& node, const ModelConfig& m) {
  const bool mlp = m.kind == ModelKind::mlp;
  const double b = double(m.batch), l = double(mlp ? 1 : m.length), d = double(m.d_model);
  const double f = double(m.d_ff), h = double(m.heads), k = double(m.d_kv), V = double(m.vocab);
  const double E = double(m.experts);
  std::vector<std::pair<std::string, double>> tensors = {{"[batch, length, d_model]", b * l * d},
                                                         {"[batch, length, d_ff]", b * l * f},
                                                         {"[d_model, d_ff]", d * f}};
  if (!mlp) {
    tensors.insert(tensors.end(), {{"[batch, length, vocab]", b * l * V},
                                   {"[vocab, d_model]", V * d},
                                   {"[d_model, heads, d_kv]", d * h * k},
                                   {"[batch, length, heads, d_kv]", b * l * h * k},
                                   {"[batch, heads, length, length]", b * h * l * l}});
  }
  if (m.kind == ModelKind::moe_transformer) {
    // expert_capacity() casts this to an integer, so it is bounded here first.
    const double capacity = std::ceil(m.capacity_factor * l / E);
    tensors.insert(tensors.end(), {{"[experts, d_model, d_ff]", E * d * f},
                                   {"[batch, length, experts, capacity]", b * l * E * capacity},
                                   {"[experts, batch, capacity, d_ff]", E * b * capacity * f}});
  }
  for (const auto& [tensor, elements] : tensors) {
    if (elements > kMaxTensorElements) {
      node.fail(
          fmt::format("its tensor {} would have {:.3g} elements, more than the {:.3g} a tensor may have",
                      tensor, elements, kMaxTensorElements));
    }
  }
}

}  // namespace

std::vector<std::string> model_keys(ModelKind kind) {
  switch (kind) {
    case ModelKind::mlp:
      return {"kind", "layers", "d_model", "d_ff", "batch", "activation_dtype"};
    case ModelKind::transformer_lm:
      return {"kind", "layers", "d_model", "d_ff",   "heads",
              "d_kv", "vocab",  "batch",   "length", "activation_dtype"};
    case ModelKind::encoder_decoder:
      return {"kind",  "encoder_layers", "decoder_layers", "d_model",         "d_ff", "heads", "d_kv",
              "vocab", "batch",          "length",         "activation_dtype"};
    case ModelKind::moe_transformer:
      return {"kind",  "layers", "d_model", "d_ff",    "heads",           "d_kv",
              "vocab", "batch",  "length",  "experts", "capacity_factor", "activation_dtype"};
  }
  return {};
}

std::vector<std::string> model_dimension_names(ModelKind kind) {
  switch (kind) {
    case ModelKind::mlp:
      return {"batch", "d_model", "d_ff"};
    case ModelKind::transformer_lm:
    case ModelKind::encoder_decoder:
      return {"batch", "length", "d_model", "d_ff", "heads", "d_kv", "vocab"};
    case ModelKind::moe_transformer:
      return {"batch", "length", "d_model", "d_ff", "heads", "d_kv", "vocab", "experts"};
  }
  return {};
}

std::vector<std::string> all_model_keys() {
  std::vector<std::string> keys;
  for (const auto kind :
       {ModelKind::mlp, ModelKind::transformer_lm, ModelKind::encoder_decoder, ModelKind::moe_transformer}) {
    for (const auto& key : model_keys(kind)) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  return keys;
}

ModelConfig parse_model(const ConfigNode& node) {
  // Without a kind, a misspelt "kind" is best reported as an unknown key among all the model keys.
  if (!node.has("kind")) node.expect_map(all_model_keys());
  ModelConfig model;
  model.kind = model_kind_from(node.child("kind").one_of(kModelKinds));
  node.expect_map(model_keys(model.kind));
  auto size = [&](const char* key) { return node.child(key).positive_integer(); };
  auto layers = [&](const char* key) {
    const std::int64_t n = size(key);
    if (n > kMaxLayers)
      node.child(key).fail(fmt::format("{} is more than the {} layers a model may have", n, kMaxLayers));
    return static_cast<int>(n);
  };
  if (model.kind == ModelKind::encoder_decoder) {
    model.layers = layers("encoder_layers");
    model.decoder_layers = layers("decoder_layers");
  } else {
    model.layers = layers("layers");
  }
  model.d_model = size("d_model");
  model.d_ff = size("d_ff");
  model.batch = size("batch");
  if (model.kind != ModelKind::mlp) {
    model.heads = size("heads");
    model.d_kv = size("d_kv");
    model.vocab = size("vocab");
    model.length = size("length");
  }
  if (model.kind == ModelKind::moe_transformer) {
    model.experts = size("experts");
    model.capacity_factor = node.has("capacity_factor") ? node.child("capacity_factor").number() : 2.0;
    if (model.capacity_factor <= 0) node.child("capacity_factor").fail("must be positive");
  }
  if (node.has("activation_dtype")) {
    model.activation_dtype = node.child("activation_dtype").one_of({"bf16", "f32"}) == "bf16"
                                 ? ActivationDType::bf16
                                 : ActivationDType::f32;
  }
  check_model_fits_in_counters(node, model);
  return model;
}

std::int64_t model_dimension_size(const ModelConfig& model, const std::string& dim) {
  if (dim == "batch") return model.batch;
  if (dim == "d_model") return model.d_model;
  if (dim == "d_ff") return model.d_ff;
  if (dim == "heads") return model.heads;
  if (dim == "d_kv") return model.d_kv;
  if (dim == "vocab") return model.vocab;
  if (dim == "length") return model.length;
  if (dim == "experts") return model.experts;
  return 1;
}

}  // namespace tpusim::workloads
