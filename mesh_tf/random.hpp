#pragma once
// Counter-based random numbers keyed by (seed, global element index): every slice draws its own elements
// without communication, and the values do not depend on the layout.
#include <cmath>
#include <cstdint>

namespace tpusim::mtf {

inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in (0, 1).
inline double uniform01(std::uint64_t seed, std::uint64_t index, std::uint64_t stream = 0) {
  const std::uint64_t bits = mix64(mix64(seed ^ (stream * 0xD1B54A32D192ED03ull)) ^ index);
  return (static_cast<double>(bits >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

inline double standard_normal(std::uint64_t seed, std::uint64_t index) {
  const double u1 = uniform01(seed, index, 1), u2 = uniform01(seed, index, 2);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace tpusim::mtf
