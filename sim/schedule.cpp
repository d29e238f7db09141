#include "sim/schedule.hpp"

#include <algorithm>
#include <memory>

#include "topologies/support/check.hpp"

namespace tpusim::sim {

ElementRange balanced_part(ElementRange whole, std::uint64_t parts, std::uint64_t i) {
  TPUSIM_CHECK(parts > 0 && i < parts);
  // count * (i + 1) exceeds 64 bits for sizes near the uint64 range (parse_bytes accepts up to 1.8e19 bytes),
  // which would give wrong, even negative, chunks.
  using Wide = unsigned __int128;
  const auto begin = static_cast<std::uint64_t>(Wide{whole.count} * i / parts);
  const auto end = static_cast<std::uint64_t>(Wide{whole.count} * (i + 1) / parts);
  return {whole.offset + begin, end - begin};
}

bool same_pattern(const std::vector<Transfer>& a, const std::vector<Transfer>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].src != b[i].src || a[i].dst != b[i].dst || a[i].count != b[i].count) return false;
  }
  return true;
}

std::vector<ElementRange> balanced_split(ElementRange whole, std::uint64_t parts) {
  std::vector<ElementRange> out;
  out.reserve(parts);
  for (std::uint64_t i = 0; i < parts; ++i) out.push_back(balanced_part(whole, parts, i));
  return out;
}

void Schedule::then(std::size_t rounds, RoundFn fn, RepeatFn repeats) {
  if (rounds == 0) return;
  phases_.push_back({rounds_, rounds, std::move(fn), std::move(repeats)});
  rounds_ += rounds;
}

void Schedule::then(std::size_t rounds, RoundFn fn, std::function<bool(std::size_t round)> repeats_previous) {
  then(rounds, std::move(fn), [repeats_previous](std::size_t round, std::size_t back) {
    return back == 1 && repeats_previous(round);
  });
}

void Schedule::then(Schedule next) {
  for (auto& phase : next.phases_) then(phase.rounds, std::move(phase.fn), std::move(phase.repeats));
}

bool Schedule::repeats(std::size_t round, std::size_t back) const {
  TPUSIM_CHECK(round < rounds_ && back > 0);
  for (const auto& phase : phases_) {
    if (round < phase.first_round + phase.rounds) {
      // Rounds of a phase are not compared with those of the phase before: unknown.
      return round >= phase.first_round + back && phase.repeats != nullptr &&
             phase.repeats(round - phase.first_round, back);
    }
  }
  return false;
}

Schedule concurrently(std::vector<Schedule> parts) {
  std::vector<Schedule> kept;
  for (auto& part : parts) {
    if (part.rounds_ > 0) kept.push_back(std::move(part));
  }
  if (kept.size() == 1) return std::move(kept.front());
  std::size_t rounds = 0;
  for (const auto& part : kept) rounds = std::max(rounds, part.rounds_);
  auto shared = std::make_shared<std::vector<Schedule>>(std::move(kept));
  Schedule result;
  result.then(
      rounds,
      [shared](std::size_t round, std::vector<Transfer>& out) {
        for (const auto& part : *shared) {
          if (round < part.rounds_) part.append_round(round, out);
        }
      },
      // A round repeats an earlier one when every part still running repeats it, and every part that has
      // stopped had already stopped by the earlier round.
      [shared](std::size_t round, std::size_t back) {
        for (const auto& part : *shared) {
          if (round < part.rounds_ ? !part.repeats(round, back) : round - back < part.rounds_) return false;
        }
        return true;
      });
  return result;
}

void Schedule::append_round(std::size_t round, std::vector<Transfer>& out) const {
  TPUSIM_CHECK(round < rounds_);
  // Phases are few; a linear scan is cheaper than a search for them.
  for (const auto& phase : phases_) {
    if (round < phase.first_round + phase.rounds) {
      phase.fn(round - phase.first_round, out);
      return;
    }
  }
}

Schedule laid_out(Schedule inner, std::shared_ptr<const IndexMap> layout) {
  auto shared = std::make_shared<Schedule>(std::move(inner));
  Schedule result;
  result.then(
      shared->round_count(),
      [shared, layout](std::size_t round, std::vector<Transfer>& out) {
        const std::size_t first = out.size();
        shared->append_round(round, out);
        for (std::size_t i = first; i < out.size(); ++i) {
          TPUSIM_CHECK(out[i].layout == nullptr && !out[i].from_input);
          out[i].layout = layout.get();
        }
      },
      [shared](std::size_t round, std::size_t back) { return shared->repeats(round, back); });
  return result;
}

Schedule materialized(std::vector<std::vector<Transfer>> rounds) {
  auto held = std::make_shared<std::vector<std::vector<Transfer>>>(std::move(rounds));
  Schedule schedule;
  schedule.then(held->size(), [held](std::size_t round, std::vector<Transfer>& out) {
    for (const auto& t : (*held)[round]) add(out, t);
  });
  return schedule;
}

}  // namespace tpusim::sim
