#pragma once
// Deterministic synthetic training data: the same (config, seed, step) always gives the same values, on any
// machine (a counter-based splitmix64 generator, no std:: distributions). The tasks are learnable, so the
// loss of a full-numerics run falls:
//   language models: each sequence counts up from a random start token (mod vocab), the target is the next
//   one; encoder-decoder: copy such a counting sequence (the first token can only come from the encoder, the
//   rest also from the decoder's own input);  MLP: reproduce normal features;  resnet: tell the class of
//   normal images whose first channel is shifted by an offset of their random class;  unet: classify each
//   pixel of normal images by the sum of the first channel over its 3x3 neighbourhood, cut into classes of
//   equal probability;  bert: predict the masked tokens of sentence pairs, each sentence one token repeated,
//   and tell whether segment B repeats segment A's token (the next sentence) or another one.
#include <cstdint>
#include <vector>

#include "workloads/config/run_config.hpp"
#include "workloads/models/model_builder.hpp"

namespace tpusim::workloads {

// Row-major values for an input of `role` ([batch, length], [length, memory_length], [batch, d_model],
// [batch, h, w, image_channels], [batch], [batch, h, w] or [batch, predictions]), each from its global
// index, so the same on any layout.
std::vector<float> synthetic_values(const ModelConfig& model, InputRole role, std::uint64_t seed, int step);

// The raw generator: a uniform 64-bit value for (seed, stream, index).
std::uint64_t synthetic_random(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

}  // namespace tpusim::workloads
