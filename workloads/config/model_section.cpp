#include "workloads/config/model_section.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mesh_tf/graph.hpp"
#include "topologies/support/check.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/config/scaled_size.hpp"
#include "workloads/models/model_kinds.hpp"

namespace tpusim::workloads {
namespace {

// The engine and the closed forms count elements, bytes and parameters in 64-bit integers: bounding the layer
// count and every tensor's elements (whole pod) keeps those sums far from overflow, and keeps the layer count
// an int. lm-s5's largest tensor, [batch, length, d_ff], has 1.7e10 elements.
constexpr std::int64_t kMaxLayers = 1000;
constexpr double kMaxTensorElements = double(mtf::Graph::kMaxTensorElements);

// A size key sizes the tensor dimension of its name, so it may grow with the mesh axis that splits it
// (scaled_size.hpp).
ModelKey size_key(std::string name, std::int64_t ModelConfig::*field, std::string doc) {
  return {std::move(name),
          "whole number, or {per: mesh axis, value: N} for N per processor along that axis",
          "at least 1",
          std::move(doc),
          [field](const ConfigNode& value, ModelConfig& m) { m.*field = value.positive_integer(); },
          [field](const ModelConfig& m) { return nlohmann::json(m.*field); },
          [field](const ModelConfig& m) { return m.*field; }};
}

ModelKey layers_key(std::string name, int ModelConfig::*field, std::string doc) {
  return {std::move(name),
          "whole number",
          fmt::format("1 to {}", kMaxLayers),
          std::move(doc),
          [field](const ConfigNode& value, ModelConfig& m) {
            const std::int64_t layers = value.positive_integer();
            if (layers > kMaxLayers)
              value.fail(fmt::format("{} is more than the {} layers a model may have", layers, kMaxLayers));
            m.*field = static_cast<int>(layers);
          },
          [field](const ModelConfig& m) { return nlohmann::json(m.*field); },
          nullptr};
}

void check_fits_in_counters(const ConfigNode& section, const ModelConfig& model) {
  for (const auto& [tensor, elements] : model_kind(model.kind).formulas.largest_tensors(model)) {
    if (elements > kMaxTensorElements) {
      section.fail(
          fmt::format("its tensor {} would have {:.3g} elements, more than the {:.3g} a tensor may have",
                      tensor, elements, kMaxTensorElements));
    }
  }
}

// The whole section, since its keys depend on the kind.
void read_model_section(const ConfigNode& section, ConfigReading& r) {
  // Without a kind, a misspelt "kind" is best reported as an unknown key among all the model keys.
  if (!section.has("kind")) section.expect_map(all_model_keys());
  const ModelKindInfo& kind = model_kind(section.child("kind").choice(model_kind_names()));
  std::vector<std::string> allowed = {"kind"};
  for (const auto& use : kind.keys) allowed.push_back(use.key);
  section.expect_map(allowed);
  ModelConfig model;
  model.kind = kind.kind;
  for (const auto& use : kind.keys) {
    const ModelKey& key = model_key(use.key);
    if (const auto value = section.optional_child(use.key)) {
      if (key.dimension_size && is_scaled_size(*value)) {
        key.read(value->with_scalar(std::to_string(scaled_size(*value, r.config.mesh.shape))), model);
      } else {
        key.read(*value, model);
      }
      r.config.locations["model." + use.key] = value->where();
    } else if (!use.default_value.empty()) {
      key.read(ConfigNode::schema_default(use.default_value, "model." + use.key), model);
    } else {
      section.child(use.key);  // "missing key"
    }
  }
  check_fits_in_counters(section, model);
  r.config.model = model;
}

}  // namespace

const std::vector<ModelKey>& model_key_table() {
  static const std::vector<ModelKey> rows = {
      layers_key("layers", &ModelConfig::layers,
                 "Blocks of the model: decoder blocks of a language model, hidden blocks of the MLP."),
      layers_key("encoder_layers", &ModelConfig::layers, "Encoder blocks of the encoder-decoder."),
      layers_key("decoder_layers", &ModelConfig::decoder_layers, "Decoder blocks of the encoder-decoder."),
      size_key("d_model", &ModelConfig::d_model, "Model width: the size of the tensor dimension d_model."),
      size_key("d_ff", &ModelConfig::d_ff,
               "Hidden size of the feed-forward sublayers (of each expert in MoE)."),
      size_key("heads", &ModelConfig::heads, "Attention heads."),
      size_key("d_kv", &ModelConfig::d_kv, "Size of each attention head's keys and values."),
      size_key("vocab", &ModelConfig::vocab,
               "Vocabulary size: the embedding and the softmax are [vocab, d_model]."),
      size_key("batch", &ModelConfig::batch, "Sequences per step on the whole pod (examples for the MLP)."),
      size_key("length", &ModelConfig::length, "Tokens per sequence."),
      size_key("experts", &ModelConfig::experts, "Experts of each mixture-of-experts layer."),
      {"capacity_factor", "number", "greater than 0",
       "Sets the tokens one sequence may send to one expert: ceil(capacity_factor * length / experts).",
       [](const ConfigNode& value, ModelConfig& m) {
         m.capacity_factor = value.number();
         if (m.capacity_factor <= 0) value.fail("must be positive");
       },
       [](const ModelConfig& m) { return nlohmann::json(m.capacity_factor); }, nullptr},
      {"activation_dtype", "one of " + join(mtf::dtypes().names()), "",
       "Element type of activations in HBM and on the wire; every value is computed in fp32.",
       [](const ConfigNode& value, ModelConfig& m) { m.activation_dtype = value.choice(mtf::dtypes()); },
       [](const ModelConfig& m) { return nlohmann::json(dtype_name(m.activation_dtype)); }, nullptr},
  };
  return rows;
}

const ModelKey& model_key(const std::string& name) {
  for (const auto& key : model_key_table()) {
    if (key.name == name) return key;
  }
  TPUSIM_CHECK(false);  // a kind's row names a key that has no row
  return model_key_table().front();
}

std::vector<std::string> all_model_keys() {
  std::vector<std::string> keys = {"kind"};
  for (const auto& kind : model_kinds()) {
    for (const auto& use : kind.keys) {
      if (std::find(keys.begin(), keys.end(), use.key) == keys.end()) keys.push_back(use.key);
    }
  }
  return keys;
}

std::int64_t model_dimension_size(const ModelConfig& model, const std::string& dim) {
  for (const auto& key : model_key_table()) {
    if (key.name == dim && key.dimension_size) return key.dimension_size(model);
  }
  return 1;
}

std::vector<ConfigKey> model_keys() {
  return {
      ConfigKey("model.kind", "one of " + join(model_kind_names().names()),
                "The model to train. Its kind decides the other model keys (model kinds below); every tensor "
                "of the model has at most " +
                    fmt::format("{:.3g}", kMaxTensorElements) + " elements.")
          .required()
          .needs({"mesh.shape"})  // for sizes given per mesh axis
          .reads_section(read_model_section, all_model_keys())
          .reports([](const RunConfig& c) { return to_string(c.model.kind); }),
  };
}

}  // namespace tpusim::workloads
