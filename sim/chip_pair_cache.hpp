#pragma once
// sim-private: what is computed per pair of chips (a route, its links' indices), kept for the most recent
// pairs only. Rings ask for the same few pairs again and again; recursive doubling over 65,536 chips asks for
// a million different ones once each, which kept all together took a fifth of the run's memory. Every pair of
// cores on the same two chips shares the entry.
#include <cstddef>
#include <vector>

#include "topologies/topology.hpp"

namespace tpusim::sim {

template <class Value>
class ChipPairCache {
 public:
  ChipPairCache(int cores_per_chip, int num_chips)
      : cores_per_chip_(cores_per_chip), num_chips_(num_chips), slots_(kSlots) {}

  // The value for the chips of src and dst, made by fill(src, dst, value) unless the pair's slot holds it;
  // valid until the next call.
  template <class Fill>
  const Value& get(topo::Rank src, topo::Rank dst, Fill&& fill) {
    const long long key = static_cast<long long>(src / cores_per_chip_) * num_chips_ +
                          static_cast<long long>(dst / cores_per_chip_);
    Slot& slot = slots_[static_cast<std::size_t>(key) % slots_.size()];
    if (slot.key != key) {
      fill(src, dst, slot.value);
      slot.key = key;
    }
    return slot.value;
  }

 private:
  static constexpr std::size_t kSlots = std::size_t{1} << 16;
  struct Slot {
    long long key = -1;
    Value value;
  };
  int cores_per_chip_;
  int num_chips_;
  std::vector<Slot> slots_;
};

}  // namespace tpusim::sim
