#include "sim/engine/transfer_payload.hpp"

#include <algorithm>
#include <cstdint>

#include "sim/index_map.hpp"

namespace tpusim::sim {
namespace {

// Calls fn(buffer offset, count) for the buffer ranges the transfer's range at `offset` stands for: itself,
// or its pieces when the transfer has a layout.
template <typename Fn>
void for_each_payload_range(const Transfer& t, std::uint64_t offset, Fn&& fn) {
  if (t.layout == nullptr) {
    fn(offset, t.count);
  } else {
    t.layout->for_each_piece(offset, t.count, fn);
  }
}

}  // namespace

std::vector<float> read_payload(const Transfer& transfer, const float* source) {
  std::vector<float> payload;
  payload.reserve(transfer.count);
  for_each_payload_range(transfer, transfer.src_offset, [&](std::uint64_t offset, std::uint64_t count) {
    payload.insert(payload.end(), source + offset, source + offset + count);
  });
  return payload;
}

void apply_payload(const Transfer& transfer, const std::vector<float>& payload, ReduceOp op, float* target) {
  const float* in = payload.data();
  for_each_payload_range(transfer, transfer.dst_offset, [&](std::uint64_t offset, std::uint64_t count) {
    float* out = target + offset;
    if (transfer.action == Action::copy) {
      std::copy(in, in + count, out);
    } else if (op == ReduceOp::sum) {
      for (std::size_t i = 0; i < count; ++i) out[i] += in[i];
    } else {
      for (std::size_t i = 0; i < count; ++i) out[i] = std::max(out[i], in[i]);
    }
    in += count;
  });
}

}  // namespace tpusim::sim
