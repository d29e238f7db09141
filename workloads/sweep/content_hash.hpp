#pragma once
// The keys of a sweep's records (record_store.hpp): a point's record is valid while the hash of what
// determines its result (the resolved config and the tpusim version) is unchanged. FNV-1a over 64 bits: not
// cryptographic, which a cache key of one's own results need not be, and stable across runs, machines and
// builds, which std::hash is not.
#include <cstdint>
#include <string>

namespace tpusim::workloads {

class ContentHash {
 public:
  // Each part is followed by a separator, so that ("ab", "c") and ("a", "bc") differ.
  ContentHash& add(const std::string& part);
  std::uint64_t value() const { return state_; }
  std::string hex() const;  // 16 lower-case hex digits

 private:
  std::uint64_t state_ = 14695981039346656037ull;
};

}  // namespace tpusim::workloads
