#include "workloads/synthetic_data.hpp"

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
constexpr std::uint64_t kTokenStream = 1, kSourceStream = 2, kFeatureStream = 3;

std::uint64_t step_stream(std::uint64_t stream, int step) {
  return stream * 0x100000000ull + std::uint64_t(step);
}

}  // namespace

std::uint64_t synthetic_random(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ index);
}

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
    case InputRole::features: {
      const std::int64_t count = batch * model.d_model;
      values.resize(count);
      for (std::int64_t i = 0; i < count; ++i) {
        // Box-Muller on two independent uniforms.
        const double u1 = unit_interval(synthetic_random(seed, step_stream(kFeatureStream, step), 2 * i));
        const double u2 = unit_interval(synthetic_random(seed, step_stream(kFeatureStream, step), 2 * i + 1));
        values[i] = float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
      }
      break;
    }
  }
  return values;
}

}  // namespace tpusim::workloads
