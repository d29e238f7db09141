#include "mesh_tf/buffer_liveness.hpp"

#include <algorithm>
#include <set>

#include "mesh_tf/program.hpp"

namespace tpusim::mtf {

int fusion_of(const Program& program, int step) {
  const int into = program.steps[step].fused_into;
  return into >= 0 ? into : step;
}

// Whether `reader` computes the result of `producer` again rather than read it: a duplicated producer, or a
// fused attention kernel's forward value other than a row statistic read by the kernel's backward pass
// (attention_kernel.hpp).
bool computes_again(const Step& producer, const Step& reader) {
  if (producer.duplicated) return true;
  return producer.attention_kernel >= 0 && producer.attention_kernel == reader.attention_kernel &&
         !producer.kernel_backward && reader.kernel_backward && producer.fusion != FusionRole::reduction;
}

// A producer computed again in the reader's fusion is read as that producer's own inputs (and so on up a
// chain of them).
std::vector<int> values_read(const Program& program, int reader) {
  const Step& reading = program.steps[reader];
  std::vector<int> read, pending = reading.inputs;
  std::set<int> seen;
  while (!pending.empty()) {
    const int v = pending.back();
    pending.pop_back();
    if (!seen.insert(v).second) continue;
    const int producer = program.values[v].producer_step;
    if (producer >= 0 && computes_again(program.steps[producer], reading)) {
      const auto& inputs = program.steps[producer].inputs;
      pending.insert(pending.end(), inputs.begin(), inputs.end());
      continue;
    }
    read.push_back(v);
  }
  return read;
}

std::vector<BufferReads> buffer_reads(const Program& program, const std::vector<int>& kept) {
  const int n = static_cast<int>(program.steps.size());
  std::vector<BufferReads> buffers(program.values.size());
  std::vector<bool> needs_buffer(program.values.size(), false);
  for (int i = 0; i < n; ++i) {
    // A duplicated step is computed inside its readers, which read its inputs for it.
    if (program.steps[i].duplicated) continue;
    for (const int v : values_read(program, i)) {
      buffers[v].reads.push_back(i);
      const int producer = program.values[v].producer_step;
      // Read outside the fusion that computes it: written to HBM.
      if (producer >= 0 && fusion_of(program, producer) != fusion_of(program, i)) needs_buffer[v] = true;
    }
  }
  for (const int v : kept) {
    buffers[v].reads.push_back(n);
    needs_buffer[v] = true;
  }
  for (std::size_t v = 0; v < program.values.size(); ++v) {
    const int p = program.values[v].producer_step;
    if (p < 0) continue;
    const Step& producer = program.steps[p];
    // An unfused step's result is written even when nothing reads it; a fused one's only when needed.
    buffers[v].buffered = producer.is_comm || needs_buffer[v] ||
                          (producer.fused_into < 0 && !producer.duplicated && buffers[v].reads.empty());
  }
  return buffers;
}

LiveMemory live_memory(const Program& program, const std::vector<int>& kept) {
  return live_memory(program, buffer_reads(program, kept));
}

LiveMemory live_memory(const Program& program, const std::vector<BufferReads>& buffers) {
  const int n = static_cast<int>(program.steps.size());
  LiveMemory memory;
  // delta[i]: bytes that start living at step i (added) and stop after step i (subtracted at i + 1).
  std::vector<std::int64_t> delta(n + 2, 0);
  const auto live_over = [&](int first, int last, std::int64_t bytes) {
    delta[first] += bytes;
    delta[std::min(last, n) + 1] -= bytes;
  };
  for (std::size_t v = 0; v < program.values.size(); ++v) {
    const Value& value = program.values[v];
    const auto bytes = static_cast<std::int64_t>(value.slice_bytes());
    if (value.producer_step < 0) {
      memory.source_bytes += static_cast<std::uint64_t>(bytes);
      continue;
    }
    if (!buffers[v].buffered) continue;
    const std::vector<int>& reads = buffers[v].reads;
    const int last = reads.empty() ? value.producer_step : std::max(reads.back(), value.producer_step);
    const int again = value.rematerialized_at;
    if (again < 0) {
      live_over(value.producer_step, last, bytes);
      continue;
    }
    const auto before = std::lower_bound(reads.begin(), reads.end(), again);
    live_over(value.producer_step, before == reads.begin() ? value.producer_step : *(before - 1), bytes);
    live_over(again, last, bytes);
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
