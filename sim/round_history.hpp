#pragma once
// sim-private: the rounds a collective has just run one after another, each alone on the network, kept so
// that the executor can fold rounds that repeat an earlier one of them (sim/engine/executor.cpp). A ring
// whose chunks differ in size (a 4 KiB buffer over thousands of members: chunks of 0 or 1 element) never
// repeats the round before, but it repeats the round a period earlier: the chunk sizes' period.
//
// A round is kept when it ran alone: its transfers all started at one instant, at which nothing else was in
// flight and every earlier round had ended, they all ended at one instant, and no later round had started by
// then. It continues the kept run when it started at the instant the round before ended and every one of its
// transfers shares a rank with the round before ("linked"): then none of its transfers could have started
// before that round ended, whatever was loaded ahead.
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "sim/schedule.hpp"

namespace tpusim::sim {

struct RecordedRound {
  std::size_t round = 0;
  std::vector<Transfer> transfers;
  double start_s = 0;
  double end_s = 0;
  std::uint64_t pattern_hash = 0;
};

class RoundHistory {
 public:
  explicit RoundHistory(int num_ranks) : rank_stamp_(static_cast<std::size_t>(num_ranks), 0) {}

  void clear();
  bool empty() const { return rounds_.empty(); }
  // Keeps a round that ran alone; `clean_start`: nothing was in flight and every earlier round had ended when
  // it started (else, when it does not continue the kept run, the run is dropped).
  void record(std::size_t round, std::vector<Transfer>&& transfers, double start_s, double end_s,
              bool clean_start);
  // The latest kept round whose pattern `transfers`, the round after the last kept one, repeats, provided
  // they are linked to the last kept round; nullptr if none.
  const RecordedRound* match(std::size_t round, const std::vector<Transfer>& transfers);
  const RecordedRound& at(std::size_t round) const { return rounds_[round - rounds_.front().round]; }

 private:
  bool linked_to_last(const std::vector<Transfer>& transfers) const;
  void stamp(const RecordedRound& kept);
  void drop_front();

  std::deque<RecordedRound> rounds_;
  std::size_t kept_transfers_ = 0;
  std::unordered_map<std::uint64_t, std::size_t> round_by_hash_;  // the latest kept round with each pattern
  std::vector<std::size_t> rank_stamp_;  // round + 1 of the last kept round each rank took part in
};

// A hash of same_pattern's (source, destination, size) sequence.
std::uint64_t pattern_hash(const std::vector<Transfer>& transfers);

}  // namespace tpusim::sim
