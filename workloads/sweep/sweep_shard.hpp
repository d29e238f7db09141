#pragma once
// One of N shards of a sweep, for running it on several machines (a Slurm job array: see
// workloads/cluster/slurm_sweep.sh): shard K of N runs the points whose index % N == K - 1. Each shard writes
// its own output folder; `tpusim sweep merge` joins them (sweep_merge.hpp).
#include <string>

namespace tpusim::workloads {

struct SweepShard {
  int k = 1;  // 1-based
  int n = 1;
  bool whole() const { return n == 1; }
  bool has(int point_index) const { return point_index % n == k - 1; }
  std::string text() const;  // "2/4"
};

// "K/N" with 1 <= K <= N. InputError naming the option and what is valid otherwise.
SweepShard parse_shard(const std::string& text);

}  // namespace tpusim::workloads
