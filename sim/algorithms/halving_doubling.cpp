// Halving-doubling (Rabenseifner): recursive halving reduce-scatter, nearest partner first (partner = j xor
// 1, then xor 2, ...), each step exchanging half of what remains; then recursive doubling allgather in the
// reverse order. 2 log2(p) steps. For p not a power of two the standard fold is used: with p' the largest
// power of two below p and r = p - p', position 2i+1 (i < r) first sends its whole buffer to position 2i, the
// p' remaining members run the power-of-two algorithm, and position 2i finally sends the result back to 2i+1.
#include "sim/algorithms/algorithms.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::sim::algorithms {
namespace {

int log2_floor(int p) {
  int bits = 0;
  while ((2 << bits) <= p) ++bits;
  return bits;
}

struct Interval {
  std::size_t lo, hi;  // chunk indices
};

ElementRange span(const std::vector<ElementRange>& chunks, Interval interval) {
  const auto& first = chunks[interval.lo];
  const auto& last = chunks[interval.hi - 1];
  return {first.offset, last.end() - first.offset};
}

// The chunk interval each member holds before each halving step, and after the last (the final element).
std::vector<std::vector<Interval>> halving_intervals(std::size_t p) {
  std::vector<std::vector<Interval>> steps{std::vector<Interval>(p, Interval{0, p})};
  for (std::size_t mask = 1; mask < p; mask <<= 1) {
    auto next = steps.back();
    for (std::size_t j = 0; j < p; ++j) {
      const auto current = next[j];
      const std::size_t mid = (current.lo + current.hi) / 2;
      next[j] = (j & mask) == 0 ? Interval{current.lo, mid} : Interval{mid, current.hi};
    }
    steps.push_back(next);
  }
  return steps;
}

void halving_rounds(const Line& members, const std::vector<ElementRange>& chunks,
                    std::vector<std::vector<Transfer>>& rounds) {
  const std::size_t p = members.size();
  const auto steps = halving_intervals(p);
  std::size_t step = 0;
  for (std::size_t mask = 1; mask < p; mask <<= 1, ++step) {
    std::vector<Transfer> round;
    for (std::size_t j = 0; j < p; ++j) {
      const std::size_t partner = j ^ mask;
      const ElementRange keep = span(chunks, steps[step + 1][partner]);  // what the partner keeps, j sends
      add(round, {members[j], members[partner], keep.offset, keep.offset, keep.count, Action::reduce});
    }
    rounds.push_back(std::move(round));
  }
}

void doubling_rounds(const Line& members, const std::vector<ElementRange>& chunks,
                     std::vector<std::vector<Transfer>>& rounds) {
  const std::size_t p = members.size();
  const auto steps = halving_intervals(p);
  std::size_t step = steps.size() - 1;
  for (std::size_t mask = p >> 1; mask >= 1; mask >>= 1, --step) {
    std::vector<Transfer> round;
    for (std::size_t j = 0; j < p; ++j) {
      const ElementRange held = span(chunks, steps[step][j]);
      add(round, {members[j], members[j ^ mask], held.offset, held.offset, held.count, Action::copy});
    }
    rounds.push_back(std::move(round));
  }
}

std::size_t bit_reverse(std::size_t value, int bits) {
  std::size_t result = 0;
  for (int b = 0; b < bits; ++b) result |= ((value >> b) & 1u) << (bits - 1 - b);
  return result;
}

}  // namespace

bool is_power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }

Schedule halving_doubling_reduce_scatter(const Line& line, ElementRange range,
                                         std::vector<ElementRange>& owned) {
  const int p = static_cast<int>(line.size());
  TPUSIM_CHECK(is_power_of_two(p));
  const auto chunks = balanced_split(range, p);
  owned.assign(p, {});
  const int bits = log2_floor(p);
  for (int j = 0; j < p; ++j) owned[j] = chunks[bit_reverse(j, bits)];
  std::vector<std::vector<Transfer>> rounds;
  halving_rounds(line, chunks, rounds);
  return materialized(std::move(rounds));
}

Schedule halving_doubling_allgather(const Line& line, const std::vector<ElementRange>& owned) {
  const int p = static_cast<int>(line.size());
  TPUSIM_CHECK(is_power_of_two(p));
  const int bits = log2_floor(p);
  std::vector<ElementRange> chunks(p);
  for (int j = 0; j < p; ++j) chunks[bit_reverse(j, bits)] = owned[j];
  std::vector<std::vector<Transfer>> rounds;
  doubling_rounds(line, chunks, rounds);
  return materialized(std::move(rounds));
}

Schedule halving_doubling_allreduce(const Line& line, ElementRange range) {
  const int p = static_cast<int>(line.size());
  if (p < 2) return {};
  const int core = 1 << log2_floor(p);
  const int extra = p - core;
  Line members;  // the power-of-two set that runs halving-doubling
  for (int j = 0; j < core; ++j) members.push_back(line[j < extra ? 2 * j : j + extra]);
  std::vector<std::vector<Transfer>> rounds;
  if (extra > 0) {
    std::vector<Transfer> fold;
    for (int i = 0; i < extra; ++i)
      add(fold, {line[2 * i + 1], line[2 * i], range.offset, range.offset, range.count, Action::reduce});
    rounds.push_back(std::move(fold));
  }
  const auto chunks = balanced_split(range, core);
  halving_rounds(members, chunks, rounds);
  doubling_rounds(members, chunks, rounds);
  if (extra > 0) {
    std::vector<Transfer> unfold;
    for (int i = 0; i < extra; ++i)
      add(unfold, {line[2 * i], line[2 * i + 1], range.offset, range.offset, range.count, Action::copy});
    rounds.push_back(std::move(unfold));
  }
  return materialized(std::move(rounds));
}

}  // namespace tpusim::sim::algorithms
