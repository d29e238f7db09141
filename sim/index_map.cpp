#include "sim/index_map.hpp"

#include <algorithm>

#include "topologies/support/check.hpp"

namespace tpusim::sim {

IndexMap::IndexMap(const std::vector<Piece>& pieces) {
  for (const Piece& piece : pieces) {
    TPUSIM_CHECK(piece.virtual_offset == size_);
    if (piece.count == 0) continue;
    pieces_.push_back(piece);
    size_ += piece.count;
  }
  std::vector<Piece> by_buffer = pieces_;
  std::sort(by_buffer.begin(), by_buffer.end(),
            [](const Piece& a, const Piece& b) { return a.buffer_offset < b.buffer_offset; });
  for (std::size_t i = 1; i < by_buffer.size(); ++i) {
    TPUSIM_CHECK(by_buffer[i - 1].buffer_offset + by_buffer[i - 1].count <= by_buffer[i].buffer_offset);
  }
}

std::size_t IndexMap::first_piece(std::uint64_t offset, std::uint64_t count) const {
  TPUSIM_CHECK(offset < size_ && count <= size_ - offset);
  const auto after =
      std::upper_bound(pieces_.begin(), pieces_.end(), offset,
                       [](std::uint64_t v, const Piece& piece) { return v < piece.virtual_offset; });
  return static_cast<std::size_t>(after - pieces_.begin()) - 1;
}

}  // namespace tpusim::sim
