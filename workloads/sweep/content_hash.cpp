#include "workloads/sweep/content_hash.hpp"

#include <fmt/format.h>

namespace tpusim::workloads {

ContentHash& ContentHash::add(const std::string& part) {
  constexpr std::uint64_t kPrime = 1099511628211ull;
  for (const char c : part) state_ = (state_ ^ static_cast<unsigned char>(c)) * kPrime;
  state_ = (state_ ^ 0xffu) * kPrime;  // 0xff never occurs in UTF-8 text
  return *this;
}

std::string ContentHash::hex() const { return fmt::format("{:016x}", state_); }

}  // namespace tpusim::workloads
