#include "mesh_tf/attention_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

AttentionKernel::AttentionKernel(std::string name, Dimension query_length, Dimension key_length, bool causal,
                                 std::int64_t block_q, std::int64_t block_kv)
    : name_(std::move(name)),
      query_length_(std::move(query_length)),
      key_length_(std::move(key_length)),
      causal_(causal),
      block_q_(block_q),
      block_kv_(block_kv) {
  if (block_q_ < 1 || block_kv_ < 1) {
    throw InputError(fmt::format("attention kernel '{}': blocks of {} queries and {} keys: each must be at least 1",
                                 name_, block_q_, block_kv_));
  }
}

std::int64_t AttentionKernel::query_blocks() const {
  return (query_length_.size + block_q_ - 1) / block_q_;
}

std::int64_t AttentionKernel::key_blocks() const { return (key_length_.size + block_kv_ - 1) / block_kv_; }

std::int64_t AttentionKernel::computed_blocks() const {
  if (!causal_) return query_blocks() * key_blocks();
  std::int64_t computed = 0;
  for (std::int64_t q = 0; q < query_blocks(); ++q) {
    // The block's last query position; key blocks starting at or before it hold an unmasked pair.
    const std::int64_t last_query = std::min((q + 1) * block_q_, query_length_.size) - 1;
    computed += std::min(key_blocks(), last_query / block_kv_ + 1);
  }
  return computed;
}

double AttentionKernel::computed_fraction() const {
  return static_cast<double>(computed_blocks()) / static_cast<double>(query_blocks() * key_blocks());
}

}  // namespace tpusim::mtf
