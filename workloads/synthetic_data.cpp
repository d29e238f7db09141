#include "workloads/synthetic_data.hpp"

#include <algorithm>
#include <cmath>

namespace tpusim::workloads {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

double unit_interval(std::uint64_t bits) { return (double(bits >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

// Streams keep the inputs of one step independent of each other.
constexpr std::uint64_t kTokenStream = 1, kSourceStream = 2, kFeatureStream = 3, kImageStream = 4,
                        kImageClassStream = 5, kSentencePairStream = 6, kMaskStream = 7;

std::uint64_t step_stream(std::uint64_t stream, int step) {
  return stream * 0x100000000ull + std::uint64_t(step);
}

}  // namespace

std::uint64_t synthetic_random(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ index);
}

namespace {

// Seeded standard normal values (Box-Muller on two independent uniforms).
std::vector<float> normal_values(std::int64_t count, std::uint64_t seed, std::uint64_t stream) {
  std::vector<float> values(count);
  for (std::int64_t i = 0; i < count; ++i) {
    const double u1 = unit_interval(synthetic_random(seed, stream, 2 * i));
    const double u2 = unit_interval(synthetic_random(seed, stream, 2 * i + 1));
    values[i] = float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
  return values;
}

// The class of a standard normal value z: its quantile cut into `classes` equal parts.
float class_of(double z, std::int64_t classes) {
  const double quantile = 0.5 * (1.0 + std::erf(z / std::sqrt(2.0)));
  return float(std::min<std::int64_t>(classes - 1, std::int64_t(quantile * double(classes))));
}

// A seeded random class of each image of a step.
std::int64_t image_class(const ModelConfig& m, std::uint64_t seed, int step, std::int64_t image) {
  return std::int64_t(synthetic_random(seed, step_stream(kImageClassStream, step), image) % m.classes);
}

// Pixel classes: the first channel summed over each pixel's 3x3 neighbourhood inside the image, scaled to
// unit variance.
std::vector<float> pixel_labels(const ModelConfig& m, const std::vector<float>& images) {
  const std::int64_t S = m.image_size, C = m.image_channels;
  std::vector<float> labels;
  for (std::int64_t b = 0; b < m.batch; ++b) {
    for (std::int64_t y = 0; y < S; ++y) {
      for (std::int64_t x = 0; x < S; ++x) {
        double sum = 0;
        int count = 0;
        for (std::int64_t dy = -1; dy <= 1; ++dy) {
          for (std::int64_t dx = -1; dx <= 1; ++dx) {
            if (y + dy < 0 || y + dy >= S || x + dx < 0 || x + dx >= S) continue;
            sum += images[((b * S + y + dy) * S + x + dx) * C];
            ++count;
          }
        }
        labels.push_back(class_of(sum / std::sqrt(double(count)), m.classes));
      }
    }
  }
  return labels;
}

// BERT's sentence pair of one sequence, each sentence one random token repeated (a sentence on one topic):
// segment A, then segment B from position (length + 1) / 2 on, which repeats A's token (the next sentence)
// or, half of the time, another one (a random sentence, as create_pretraining_data.py picks one half of the
// time). A masked token is then any unmasked token of its segment: learnt within a few steps, where counting
// sequences (the language models' data) keep a tiny BERT at chance for about 80 steps while its attention
// learns to look one position aside.
struct SentencePair {
  std::int64_t split = 0;
  float a_token = 0, b_token = 0;
  bool is_random = false;
  float token(std::int64_t i) const { return i < split ? a_token : b_token; }
};

SentencePair sentence_pair(const ModelConfig& m, std::uint64_t seed, int step, std::int64_t sequence) {
  const auto random = [&](std::uint64_t which) {
    return synthetic_random(seed, step_stream(kSentencePairStream, step),
                            3 * std::uint64_t(sequence) + which);
  };
  SentencePair pair;
  pair.split = (m.length + 1) / 2;
  const std::uint64_t vocab = std::uint64_t(m.vocab), a = random(0) % vocab;
  pair.is_random = vocab > 1 && (random(1) & 1) != 0;
  const std::uint64_t jump = pair.is_random ? 1 + random(2) % (vocab - 1) : 0;  // never back to A's token
  pair.a_token = float(a);
  pair.b_token = float((a + jump) % vocab);
  return pair;
}

// `predictions` distinct positions of one sequence, ascending (create_pretraining_data.py sorts them): the
// first steps of a seeded Fisher-Yates shuffle of the positions. The config keeps predictions <= length.
std::vector<std::int64_t> masked_positions(const ModelConfig& m, std::uint64_t seed, int step,
                                           std::int64_t sequence) {
  std::vector<std::int64_t> order(m.length);
  for (std::int64_t i = 0; i < m.length; ++i) order[i] = i;
  for (std::int64_t j = 0; j < m.predictions; ++j) {
    const std::uint64_t r =
        synthetic_random(seed, step_stream(kMaskStream, step), std::uint64_t(sequence * m.length + j));
    std::swap(order[j], order[j + std::int64_t(r % std::uint64_t(m.length - j))]);
  }
  order.resize(m.predictions);
  std::sort(order.begin(), order.end());
  return order;
}

// The values of a BERT input: one row of [length] or [predictions] per sequence, or one label.
std::vector<float> bert_values(const ModelConfig& m, InputRole role, std::uint64_t seed, int step) {
  std::vector<float> values;
  for (std::int64_t b = 0; b < m.batch; ++b) {
    const SentencePair pair = sentence_pair(m, seed, step, b);
    if (role == InputRole::next_sentence_labels) {
      values.push_back(pair.is_random ? 1.0f : 0.0f);
      continue;
    }
    if (role == InputRole::token_type_ids) {
      for (std::int64_t i = 0; i < m.length; ++i) values.push_back(i < pair.split ? 0.0f : 1.0f);
      continue;
    }
    const std::vector<std::int64_t> masked = masked_positions(m, seed, step, b);
    if (role == InputRole::masked_token_ids) {
      const std::size_t row = values.size();
      for (std::int64_t i = 0; i < m.length; ++i) values.push_back(pair.token(i));
      for (const std::int64_t i : masked) values[row + i] = 0.0f;  // [MASK]: every masked token, no 80/10/10
      continue;
    }
    for (const std::int64_t i : masked)
      values.push_back(role == InputRole::masked_positions ? float(i) : pair.token(i));
  }
  return values;
}

}  // namespace

std::vector<float> synthetic_values(const ModelConfig& model, InputRole role, std::uint64_t seed, int step) {
  const std::int64_t batch = model.batch, length = model.length, vocab = model.vocab;
  std::vector<float> values;
  switch (role) {
    case InputRole::token_ids:
    case InputRole::next_token_ids: {
      const std::int64_t shift = role == InputRole::next_token_ids ? 1 : 0;
      values.resize(batch * length);
      for (std::int64_t b = 0; b < batch; ++b) {
        const std::int64_t start =
            std::int64_t(synthetic_random(seed, step_stream(kTokenStream, step), b) % vocab);
        for (std::int64_t i = 0; i < length; ++i) values[b * length + i] = float((start + i + shift) % vocab);
      }
      break;
    }
    case InputRole::source_ids:
    case InputRole::decoder_in_ids: {
      values.resize(batch * length);
      for (std::int64_t b = 0; b < batch; ++b) {
        for (std::int64_t i = 0; i < length; ++i) {
          // The decoder sees token 0 then the source shifted right by one.
          const std::int64_t position = role == InputRole::decoder_in_ids ? i - 1 : i;
          const std::int64_t start =
              std::int64_t(synthetic_random(seed, step_stream(kSourceStream, step), b) % vocab);
          values[b * length + i] = position < 0 ? 0.0f : float((start + position) % vocab);
        }
      }
      break;
    }
    case InputRole::causal_mask: {
      values.resize(length * length);
      for (std::int64_t i = 0; i < length; ++i) {
        for (std::int64_t m = 0; m < length; ++m) values[i * length + m] = m <= i ? 0.0f : -1e9f;
      }
      break;
    }
    case InputRole::rotary_cos:
    case InputRole::rotary_sin: {
      // Rotary embeddings as RoFormer defines them, base 10000, dim i and i + d_kv/2 rotated together.
      const std::int64_t dims = model.d_kv, half = dims / 2;
      values.resize(length * dims);
      for (std::int64_t p = 0; p < length; ++p) {
        for (std::int64_t i = 0; i < dims; ++i) {
          const double angle = double(p) * std::pow(10000.0, -2.0 * double(i % half) / double(dims));
          values[p * dims + i] = float(role == InputRole::rotary_cos ? std::cos(angle) : std::sin(angle));
        }
      }
      break;
    }
    case InputRole::features:
      values = normal_values(batch * model.d_model, seed, step_stream(kFeatureStream, step));
      break;
    case InputRole::images:
    case InputRole::class_images:
    case InputRole::pixel_labels: {
      const std::int64_t S = model.image_size, C = model.image_channels;
      values = normal_values(batch * S * S * C, seed, step_stream(kImageStream, step));
      if (role == InputRole::pixel_labels) values = pixel_labels(model, values);
      if (role != InputRole::class_images) break;
      // Offsets from -1 to 1 in equal steps: the mean of an image's first channel tells its class.
      for (std::int64_t b = 0; b < batch; ++b) {
        const double offset =
            2.0 * (double(image_class(model, seed, step, b)) + 0.5) / double(model.classes) - 1.0;
        for (std::int64_t p = 0; p < S * S; ++p) values[(b * S * S + p) * C] += float(offset);
      }
      break;
    }
    case InputRole::image_labels:
      for (std::int64_t b = 0; b < batch; ++b) values.push_back(float(image_class(model, seed, step, b)));
      break;
    case InputRole::masked_token_ids:
    case InputRole::token_type_ids:
    case InputRole::masked_positions:
    case InputRole::masked_label_ids:
    case InputRole::next_sentence_labels:
      values = bert_values(model, role, seed, step);
      break;
  }
  return values;
}

}  // namespace tpusim::workloads
