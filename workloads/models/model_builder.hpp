#pragma once
// A model of the config, built into an mtf::Graph: its scalar training loss and the inputs a step feeds. One
// file per model kind (mlp.cpp, transformer_lm.cpp, encoder_decoder.cpp, moe_transformer.cpp, resnet.cpp,
// unet.cpp, bert.cpp), each the builder of its row in model_kinds.hpp; the shared sublayers are in
// transformer_layers.hpp, bert_layers.hpp and image_layers.hpp. Parameter counts and FLOPs of these graphs
// are given in closed form by model_formulas.hpp, which the tests hold them to.
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

// How an input's synthetic values are made (synthetic_data.hpp).
enum class InputRole {
  token_ids,       // LM tokens: an arithmetic sequence mod vocab from a seeded random start
  next_token_ids,  // the same sequences shifted by one: the targets of next-token prediction
  source_ids,      // encoder input: a counting sequence from a seeded random start
  decoder_in_ids,  // the source shifted right by one, token 0 first (teacher forcing of a copy task)
  causal_mask,     // [length, memory_length]: 0 where a position may attend, -1e9 where it may not
  rotary_cos,      // [length, d_kv]: cos(p * base^(-2i/d_kv)) at position p, i = the dim's index mod d_kv/2
  rotary_sin,      // [length, d_kv]: the sin of the same angles
  features,        // MLP input: seeded normal values
  images,          // an image model's input [batch, h, w, image_channels]: seeded normal values
  class_images,    // the same, each image's first channel shifted by an offset its class (image_labels) sets
  image_labels,    // [batch]: a seeded random class for each image (resnet)
  pixel_labels,    // [batch, h, w]: a class for each pixel, from its 3x3 neighbourhood's first channel (unet)
  // BERT's pre-training example (run_pretraining.py's features), built from one sentence pair per sequence:
  masked_token_ids,      // [batch, length]: segments A and B, the masked positions replaced by [MASK] (id 0)
  token_type_ids,        // [batch, length]: 0 in segment A, 1 in segment B
  masked_positions,      // [batch, predictions]: distinct positions of each sequence, ascending
  masked_label_ids,      // [batch, predictions]: the tokens at those positions before masking
  next_sentence_labels,  // [batch]: 0 when segment B continues segment A, 1 when it is random
};

// Inputs whose values are the same at every step (fed once): the mask and the rotary tables.
inline bool is_constant(InputRole role) {
  return role == InputRole::causal_mask || role == InputRole::rotary_cos || role == InputRole::rotary_sin;
}

struct ModelInput {
  mtf::Tensor tensor;
  InputRole role;
};

struct BuiltModel {
  mtf::Tensor loss;  // scalar, the mean over tokens (examples for the MLP, images or pixels)
  std::vector<ModelInput> inputs;
  // Dims that stack several layers' weights in one variable (a pipeline's stage dim), for the optimizer's
  // per-layer statistics (mtf::Optimizer::stack_layers_along).
  std::vector<std::string> stacked_dims = {};
};

BuiltModel build_model(mtf::Graph& graph, const ModelConfig& model);  // the kind's builder

BuiltModel build_mlp(mtf::Graph& graph, const ModelConfig& model);
BuiltModel build_transformer_lm(mtf::Graph& graph, const ModelConfig& model);
BuiltModel build_encoder_decoder(mtf::Graph& graph, const ModelConfig& model);
BuiltModel build_moe_transformer(mtf::Graph& graph, const ModelConfig& model);
BuiltModel build_resnet(mtf::Graph& graph, const ModelConfig& model);
BuiltModel build_unet(mtf::Graph& graph, const ModelConfig& model);
BuiltModel build_bert(mtf::Graph& graph, const ModelConfig& model);

// Tokens one sequence may send to one expert: ceil(capacity_factor * length / experts), at least 1.
std::int64_t expert_capacity(const ModelConfig& model);

}  // namespace tpusim::workloads
