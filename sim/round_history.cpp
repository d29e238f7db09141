#include "sim/round_history.hpp"

namespace tpusim::sim {
namespace {

// Bounds on what is kept: a period longer than this many rounds or transfers is not looked for.
constexpr std::size_t kHistoryMaxRounds = 8192;
constexpr std::size_t kHistoryMaxTransfers = std::size_t{1} << 21;

std::uint64_t history_mix(std::uint64_t hash, std::uint64_t value) {
  // FNV-1a over 64-bit words, then a final avalanche in pattern_hash: collisions only cost a comparison.
  return (hash ^ value) * 0x100000001b3ULL;
}

}  // namespace

std::uint64_t pattern_hash(const std::vector<Transfer>& transfers) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const auto& t : transfers) {
    hash = history_mix(hash, static_cast<std::uint32_t>(t.src));
    hash = history_mix(hash, static_cast<std::uint32_t>(t.dst));
    hash = history_mix(hash, t.count);
  }
  return hash ^ (hash >> 29);
}

void RoundHistory::clear() {
  rounds_.clear();
  round_by_hash_.clear();
  kept_transfers_ = 0;
}

bool RoundHistory::linked_to_last(const std::vector<Transfer>& transfers) const {
  const std::size_t mark = rounds_.back().round + 1;
  for (const auto& t : transfers) {
    if (rank_stamp_[t.src] != mark && rank_stamp_[t.dst] != mark) return false;
  }
  return true;
}

void RoundHistory::stamp(const RecordedRound& kept) {
  for (const auto& t : kept.transfers) rank_stamp_[t.src] = rank_stamp_[t.dst] = kept.round + 1;
}

void RoundHistory::drop_front() {
  const auto found = round_by_hash_.find(rounds_.front().pattern_hash);
  if (found != round_by_hash_.end() && found->second == rounds_.front().round) round_by_hash_.erase(found);
  kept_transfers_ -= rounds_.front().transfers.size();
  rounds_.pop_front();
}

void RoundHistory::record(std::size_t round, std::vector<Transfer>&& transfers, double start_s, double end_s,
                          bool clean_start) {
  const bool continues = !rounds_.empty() && round == rounds_.back().round + 1 &&
                         start_s == rounds_.back().end_s && linked_to_last(transfers);
  if (!continues) {
    clear();
    if (!clean_start) return;
  }
  RecordedRound kept{round, std::move(transfers), start_s, end_s, 0};
  kept.pattern_hash = pattern_hash(kept.transfers);
  kept_transfers_ += kept.transfers.size();
  round_by_hash_[kept.pattern_hash] = round;
  stamp(kept);
  rounds_.push_back(std::move(kept));
  while (rounds_.size() > 1 && (rounds_.size() > kHistoryMaxRounds || kept_transfers_ > kHistoryMaxTransfers))
    drop_front();
}

const RecordedRound* RoundHistory::match(std::size_t round, const std::vector<Transfer>& transfers) {
  if (rounds_.empty() || transfers.empty() || round != rounds_.back().round + 1) return nullptr;
  const auto found = round_by_hash_.find(pattern_hash(transfers));
  if (found == round_by_hash_.end()) return nullptr;
  const RecordedRound& earlier = at(found->second);
  if (!same_pattern(earlier.transfers, transfers) || !linked_to_last(transfers)) return nullptr;
  return &earlier;
}

}  // namespace tpusim::sim
