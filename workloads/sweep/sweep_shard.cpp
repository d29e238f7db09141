#include "workloads/sweep/sweep_shard.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

#include "topologies/support/input_error.hpp"

namespace tpusim::workloads {
namespace {

constexpr int kMaxShards = 1000000;

bool parse_count(const std::string& text, int& value) {
  if (text.empty() || text.size() > 7 || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  value = std::atoi(text.c_str());
  return true;
}

}  // namespace

std::string SweepShard::text() const { return fmt::format("{}/{}", k, n); }

SweepShard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  SweepShard shard;
  const bool numbers = slash != std::string::npos && parse_count(text.substr(0, slash), shard.k) &&
                       parse_count(text.substr(slash + 1), shard.n);
  if (!numbers) {
    throw InputError(fmt::format(
        "--shard: '{}' is not K/N: give the shard's number K (1 to N) and the number of shards N, e.g. 2/4",
        text));
  }
  if (shard.n < 1 || shard.n > kMaxShards)
    throw InputError(fmt::format("--shard {}: N must be 1 to {}", text, kMaxShards));
  if (shard.k < 1 || shard.k > shard.n) {
    throw InputError(
        fmt::format("--shard {}: K must be 1 to {} (shards are numbered from 1, as Slurm's "
                    "SLURM_ARRAY_TASK_ID with --array=1-{})",
                    text, shard.n, shard.n));
  }
  return shard;
}

}  // namespace tpusim::workloads
