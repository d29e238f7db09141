#include "mesh_tf/buffer_liveness.hpp"

#include <algorithm>

#include "mesh_tf/program.hpp"

namespace tpusim::mtf {
namespace {

// The fusion a step runs in: its own index when it is a kernel of its own.
int fusion_of(const Program& program, int step) {
  const int into = program.steps[step].fused_into;
  return into >= 0 ? into : step;
}

}  // namespace

LiveMemory live_memory(const Program& program, const std::vector<int>& kept) {
  const int n = static_cast<int>(program.steps.size());
  const int values = static_cast<int>(program.values.size());
  std::vector<int> last_use(values, -1);
  std::vector<bool> needs_buffer(values, false);
  for (int i = 0; i < n; ++i) {
    for (const int v : program.steps[i].inputs) {
      last_use[v] = std::max(last_use[v], i);
      const int producer = program.values[v].producer_step;
      // Read outside the fusion that computes it: written to HBM.
      if (producer >= 0 && fusion_of(program, producer) != fusion_of(program, i)) needs_buffer[v] = true;
    }
  }
  for (const int v : kept) {
    last_use[v] = n;
    needs_buffer[v] = true;
  }
  LiveMemory memory;
  // delta[i]: bytes that start living at step i (added) and stop after step i (subtracted at i + 1).
  std::vector<std::int64_t> delta(n + 2, 0);
  for (int v = 0; v < values; ++v) {
    const Value& value = program.values[v];
    const auto bytes = static_cast<std::int64_t>(value.slice_bytes());
    if (value.producer_step < 0) {
      memory.source_bytes += static_cast<std::uint64_t>(bytes);
      continue;
    }
    const Step& producer = program.steps[value.producer_step];
    // An unfused step's result is written even when nothing reads it; a fused one's only when needed.
    const bool written = producer.is_comm || needs_buffer[v] || (producer.fused_into < 0 && last_use[v] < 0);
    if (!written) continue;
    const int end = std::max(last_use[v], value.producer_step);
    delta[value.producer_step] += bytes;
    delta[std::min(end, n) + 1] -= bytes;
  }
  std::int64_t live = 0;
  memory.peak_bytes = memory.source_bytes;
  for (int i = 0; i < n; ++i) {
    live += delta[i];
    const auto total = memory.source_bytes + static_cast<std::uint64_t>(live);
    if (total > memory.peak_bytes) {
      memory.peak_bytes = total;
      memory.peak_step = i;
    }
  }
  return memory;
}

}  // namespace tpusim::mtf
