#pragma once
// A collective as the simulator runs it: an ordered list of ROUNDS, each a list of transfers. A transfer of
// round k starts when its source and destination have finished every transfer they take part in in earlier
// rounds (no global barrier: this per-rank dependency is what real rings do). Its payload is read from the
// source when it starts and applied at the destination when it ends. Rounds are generated on demand because a
// ring over 4096 cores has 16M transfers, too many to hold.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "topologies/topology.hpp"

namespace tpusim::sim {

class IndexMap;

using topo::Rank;

enum class Action : std::uint8_t { copy, reduce };

struct ElementRange {
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
  std::uint64_t end() const { return offset + count; }
  bool operator==(const ElementRange& other) const { return offset == other.offset && count == other.count; }
};

struct Transfer {
  Rank src = 0;
  Rank dst = 0;
  std::uint64_t src_offset = 0;
  std::uint64_t dst_offset = 0;
  std::uint64_t count = 0;  // elements
  Action action = Action::copy;
  bool from_input = false;  // read the source's buffer as it was when the collective began (all-to-all)
  // The offsets are positions in this map's order of both buffers (sim/index_map.hpp); nullptr: in the
  // buffers' own. Owned by the schedule, which outlives its transfers.
  const IndexMap* layout = nullptr;
};

// Balanced split: part i of `parts` is [offset + i*count/parts, offset + (i+1)*count/parts).
ElementRange balanced_part(ElementRange whole, std::uint64_t parts, std::uint64_t i);
std::vector<ElementRange> balanced_split(ElementRange whole, std::uint64_t parts);

// Appends the transfers of one round; empty (zero-element) transfers are dropped by the caller, see add().
using RoundFn = std::function<void(std::size_t round, std::vector<Transfer>& out)>;
// Whether round `round` of a phase has the pattern (same_pattern) of round `round - back` of the same phase
// (0 < back <= round), known without generating either; false when unknown. Rings whose chunks differ in size
// repeat only after a period of rounds (the period of their chunk sizes), not from one round to the next.
using RepeatFn = std::function<bool(std::size_t round, std::size_t back)>;

class Schedule {
 public:
  // Runs `rounds` rounds after the phases already added; `repeats` may say which rounds repeat the one
  // before.
  void then(std::size_t rounds, RoundFn fn, RepeatFn repeats = nullptr);
  // The same with only what repeats the round before known.
  void then(std::size_t rounds, RoundFn fn, std::function<bool(std::size_t round)> repeats_previous);
  void then(Schedule next);

  std::size_t round_count() const { return rounds_; }
  void append_round(std::size_t round, std::vector<Transfer>& out) const;
  // Whether round `round` moves what round - 1 moved (same_pattern), known without generating them: lets the
  // executor and the prediction fold a ring's thousands of equal rounds without building their transfers.
  // False when not known (the caller then compares generated rounds); never true when they differ.
  bool repeats_previous(std::size_t round) const { return repeats(round, 1); }
  // Whether round `round` moves what round - back moved, known without generating them (false when not
  // known, or when the two rounds lie in different phases).
  bool repeats(std::size_t round, std::size_t back) const;

 private:
  struct Phase {
    std::size_t first_round;
    std::size_t rounds;
    RoundFn fn;
    RepeatFn repeats;
  };
  friend Schedule concurrently(std::vector<Schedule> parts);
  std::vector<Phase> phases_;
  std::size_t rounds_ = 0;
};

// Pushes t unless it moves no elements: an empty chunk sends no message, so it costs nothing.
inline void add(std::vector<Transfer>& out, const Transfer& t) {
  if (t.count > 0 && t.src != t.dst) out.push_back(t);
}

// Whether two rounds move the same sizes between the same ranks in the same order: what makes a round a
// repeat of the one before it, which the executor and the alpha-beta prediction fold.
bool same_pattern(const std::vector<Transfer>& a, const std::vector<Transfer>& b);

// Runs all of `parts` at the same time (round k of the result is round k of each); used for the many groups
// or lines of one collective.
Schedule concurrently(std::vector<Schedule> parts);

// `inner` with its transfers' offsets read through `layout` (the whole schedule works on one part's virtual
// order); it keeps the map alive.
Schedule laid_out(Schedule inner, std::shared_ptr<const IndexMap> layout);

// A schedule held in memory, for algorithms with few rounds.
Schedule materialized(std::vector<std::vector<Transfer>> rounds);

}  // namespace tpusim::sim
