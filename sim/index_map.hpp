#pragma once
// A part of every member's buffer seen in an order of its own. An algorithm that runs several compositions
// at once on interleaved parts of the data (multiport's reduce-scatter: part j holds the j-th slice of every
// member's chunk) builds each part's schedule over a contiguous "virtual" index space, and the map takes a
// virtual range to the pieces of the buffer it stands for. Transfers then stay one contiguous range each (one
// message, one alpha), and only the executor's reading and writing of real data walks the pieces.
#include <cstdint>
#include <vector>

namespace tpusim::sim {

class IndexMap {
 public:
  struct Piece {
    std::uint64_t virtual_offset = 0;
    std::uint64_t buffer_offset = 0;
    std::uint64_t count = 0;
  };

  // Pieces in virtual order, each starting where the one before ended, the first at 0; empty pieces are
  // dropped. Buffer ranges may come in any order but must not overlap.
  explicit IndexMap(const std::vector<Piece>& pieces);

  std::uint64_t size() const { return size_; }

  // Calls fn(buffer_offset, count) for the pieces of the virtual range [offset, offset + count), in virtual
  // order; their counts add up to count.
  template <typename Fn>
  void for_each_piece(std::uint64_t offset, std::uint64_t count, Fn&& fn) const {
    if (count == 0) return;
    for (std::size_t i = first_piece(offset, count); count > 0; ++i) {
      const Piece& piece = pieces_[i];
      const std::uint64_t skip = offset - piece.virtual_offset;
      const std::uint64_t take = piece.count - skip < count ? piece.count - skip : count;
      fn(piece.buffer_offset + skip, take);
      offset += take;
      count -= take;
    }
  }

 private:
  // The piece holding `offset`; checks that the range lies inside the map.
  std::size_t first_piece(std::uint64_t offset, std::uint64_t count) const;
  std::vector<Piece> pieces_;
  std::uint64_t size_ = 0;
};

}  // namespace tpusim::sim
