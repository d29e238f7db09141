// Halving-doubling: recursive halving (a reduce-scatter, log2 p steps, each handing the partner half of
// what a member is still responsible for) and recursive doubling (an allgather, its mirror: log2 p steps,
// each handing over everything held, which doubles). Rabenseifner's allreduce is one then the other.
//
// Which range each position ends with (halving) or starts with (doubling) is an input, `owned`, and the
// order of the partners follows it so that every step is one message:
//   - the allreduce (and a composed allreduce) chooses chunk bit_reverse(i) for position i and halves with
//     partner j xor 1 first, then xor 2, ...: the largest messages go to the nearest partner;
//   - a reduce-scatter or allgather request promises chunk i at position i, which is contiguous only when
//     halving pairs j xor p/2 first, then p/4, ... (MPICH's recursive halving; doubling pairs j xor 1
//     first). Pairing xor 1 first there would hand over p/2 separate chunks in one step.
// One message matters: pieces sent side by side would each get a fair share of a shared link, more than one
// message gets against other traffic, and each the whole of a chip's on-chip link (SimGrid FATPIPE). A
// member hands over the ranges of the positions on the partner's side, one transfer per run of adjacent
// ranges, so any assignment works; an unusual one costs more messages, not a wrong result.
//
// Sizes that are not powers of two use the standard fold: with p' the largest power of two below p and
// e = p - p', position 2i+1 (i < e) first hands its data to position 2i, the p' remaining members run the
// power-of-two steps (2i standing for both), and 2i finally hands 2i+1 its result.
#include <algorithm>
#include <memory>
#include <unordered_map>

#include "sim/algorithms/algorithms.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::sim::algorithms {
namespace {

int log2_floor(int p) {
  int bits = 0;
  while ((2 << bits) <= p) ++bits;
  return bits;
}

std::size_t bit_reverse(std::size_t value, int bits) {
  std::size_t result = 0;
  for (int b = 0; b < bits; ++b) result |= ((value >> b) & 1u) << (bits - 1 - b);
  return result;
}

// `ranges` as runs of adjacent ranges in offset order: a member's share of a step is one message per
// contiguous piece, whatever the order its ranges were collected in.
std::vector<ElementRange> runs_of(std::vector<ElementRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const ElementRange& a, const ElementRange& b) { return a.offset < b.offset; });
  std::vector<ElementRange> runs;
  for (const auto& range : ranges) {
    if (range.count == 0) continue;
    // Overlapping ranges would be reduced twice.
    TPUSIM_CHECK(runs.empty() || runs.back().end() <= range.offset);
    if (!runs.empty() && runs.back().end() == range.offset) {
      runs.back().count += range.count;
    } else {
      runs.push_back(range);
    }
  }
  return runs;
}

void send(Rank src, Rank dst, const std::vector<ElementRange>& runs, Action action,
          std::vector<Transfer>& out) {
  for (const auto& run : runs) add(out, {src, dst, run.offset, run.offset, run.count, action});
}

void send_runs(Rank src, Rank dst, std::vector<ElementRange> ranges, Action action,
               std::vector<Transfer>& out) {
  send(src, dst, runs_of(std::move(ranges)), action, out);
}

// The power-of-two set that runs the recursive steps: member c stands for ranges[c], the ranges it ends
// with reduced (halving) or starts with (doubling); after the fold that is two positions' ranges.
struct Plan {
  bool halve_furthest_first = false;  // halving pairs j xor p'/2 first (else j xor 1 first)
  Line line;
  std::vector<ElementRange> owned;  // by line position
  int extra = 0;                    // e: the positions 2i+1, i < e, sit out the recursive steps
  Line members;                     // the p' core members, in line order
  std::vector<std::vector<ElementRange>> ranges;
};

// Line position of core member c: the first of its pair for c < e, after the pairs for the others.
int core_position(int c, int extra) { return c < extra ? 2 * c : c + extra; }

std::shared_ptr<const Plan> fold(const Line& line, const std::vector<ElementRange>& owned,
                                 bool halve_furthest_first) {
  TPUSIM_CHECK(owned.size() == line.size());
  std::vector<ElementRange> sorted;
  for (const auto& range : owned) {
    if (range.count > 0) sorted.push_back(range);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const ElementRange& a, const ElementRange& b) { return a.offset < b.offset; });
  for (std::size_t i = 1; i < sorted.size(); ++i) TPUSIM_CHECK(sorted[i - 1].end() <= sorted[i].offset);
  auto plan = std::make_shared<Plan>();
  plan->halve_furthest_first = halve_furthest_first;
  plan->line = line;
  plan->owned = owned;
  const int p = static_cast<int>(line.size());
  const int core = 1 << log2_floor(p);
  plan->extra = p - core;
  for (int c = 0; c < core; ++c) {
    const int position = core_position(c, plan->extra);
    plan->members.push_back(line[position]);
    plan->ranges.push_back({owned[position]});
    if (c < plan->extra) plan->ranges.back().push_back(owned[position + 1]);
  }
  return plan;
}

// Halving step h pairs c with c xor mask(h). Before it, member c is responsible for the core indices that
// agree with c on the masks of the earlier steps; it hands the partner those that also agree with the partner
// on mask(h). Doubling step s is the mirror of halving step h = log2(p') - 1 - s: member c holds the indices
// agreeing with c on the masks of halving steps 0..h and hands them all over.
std::size_t halving_mask(const Plan& plan, std::size_t h) {
  const std::size_t q = plan.members.size();
  return plan.halve_furthest_first ? q >> (h + 1) : std::size_t{1} << h;
}

void recursive_step(const Plan& plan, std::size_t h, bool halving, std::vector<Transfer>& out) {
  const std::size_t q = plan.members.size();
  const std::size_t mask = halving_mask(plan, h);
  // The masks of halving steps 0..h.
  const std::size_t agree = plan.halve_furthest_first ? (q - 1) & ~(mask - 1) : 2 * mask - 1;
  const std::size_t free = (q - 1) & ~agree;
  // Every member whose side (its partner's when halving, its own when doubling) agrees on those masks hands
  // over the same ranges: they are gathered once per side, so a step costs q ranges, not q times 2^free
  // (quadratic in q: over 200 s for a line of 65,536 members).
  std::unordered_map<std::size_t, std::vector<ElementRange>> runs_by_side;
  std::vector<ElementRange> ranges;
  for (std::size_t c = 0; c < q; ++c) {
    const std::size_t partner = c ^ mask;
    const std::size_t base = (halving ? partner : c) & agree;
    auto found = runs_by_side.find(base);
    if (found == runs_by_side.end()) {
      ranges.clear();
      for (std::size_t s = free;; s = (s - 1) & free) {  // every subset of the free bits
        const auto& held = plan.ranges[base | s];
        ranges.insert(ranges.end(), held.begin(), held.end());
        if (s == 0) break;
      }
      found = runs_by_side.emplace(base, runs_of(ranges)).first;
    }
    send(plan.members[c], plan.members[partner], found->second, halving ? Action::reduce : Action::copy, out);
  }
}

std::size_t step_count(const Plan& plan) { return log2_floor(static_cast<int>(plan.members.size())); }

Schedule halving_steps(std::shared_ptr<const Plan> plan) {
  Schedule schedule;
  schedule.then(step_count(*plan), [plan](std::size_t step, std::vector<Transfer>& out) {
    recursive_step(*plan, step, true, out);
  });
  return schedule;
}

Schedule doubling_steps(std::shared_ptr<const Plan> plan) {
  Schedule schedule;
  const std::size_t steps = step_count(*plan);
  schedule.then(steps, [plan, steps](std::size_t step, std::vector<Transfer>& out) {
    recursive_step(*plan, steps - 1 - step, false, out);
  });
  return schedule;
}

// The fold's first round (to_core: 2i+1 sends to 2i) or last (2i sends to 2i+1), for every i < e; `what`
// gives the ranges, from the plan and the extra position 2i+1.
template <typename What>
Schedule fold_round(std::shared_ptr<const Plan> plan, bool to_core, Action action, What what) {
  Schedule schedule;
  schedule.then(
      plan->extra > 0 ? 1 : 0, [plan, to_core, action, what](std::size_t, std::vector<Transfer>& out) {
        for (int i = 0; i < plan->extra; ++i) {
          const Rank core = plan->line[2 * i], extra = plan->line[2 * i + 1];
          send_runs(to_core ? extra : core, to_core ? core : extra, what(*plan, 2 * i + 1), action, out);
        }
      });
  return schedule;
}

std::vector<ElementRange> all_owned(const Plan& plan, int) { return plan.owned; }
std::vector<ElementRange> own_range(const Plan& plan, int position) { return {plan.owned[position]}; }

// The extra positions fold their whole share in and get their reduced range back at the end.
Schedule reduce_scatter(const Line& line, const std::vector<ElementRange>& owned, bool halve_furthest_first) {
  if (line.size() < 2) return {};
  const auto plan = fold(line, owned, halve_furthest_first);
  Schedule schedule = fold_round(plan, true, Action::reduce, all_owned);
  schedule.then(halving_steps(plan));
  schedule.then(fold_round(plan, false, Action::copy, own_range));
  return schedule;
}

// The extra positions hand their range in and get the whole result at the end (their own range included:
// one message, where leaving it out would take two).
Schedule allgather(const Line& line, const std::vector<ElementRange>& owned, bool halve_furthest_first) {
  if (line.size() < 2) return {};
  const auto plan = fold(line, owned, halve_furthest_first);
  Schedule schedule = fold_round(plan, true, Action::copy, own_range);
  schedule.then(doubling_steps(plan));
  schedule.then(fold_round(plan, false, Action::copy, all_owned));
  return schedule;
}

// sim/README.md, Closed forms: recursive halving (reduce-scatter) or doubling (allgather) of s bytes on k
// members with chunk i at position i (halving pairs j xor p'/2 first, doubling j xor 1 first), every transfer
// one hop over identical links with none shared (a hypercube), chunks of c = s/k bytes.
//   k = 2^m: the step with partner j xor 2^i moves 2^i chunks: m a + (k-1)/k s/B.
//   otherwise k = p' + e, p' = 2^m the largest power of two below k, and the fold adds two rounds:
//     fold      a + s/B (reduce-scatter: an extra member's whole buffer) or a + c/B (allgather: its chunk);
//     step      partner j xor 2^i, i = 0..m-1: a + (2^i + min(e, 2^i)) c/B. Core members exchange blocks of
//               2^i consecutive core indices, those below e standing for two chunks; the block of index 0
//               has the most, min(e, 2^i), and member 0 also waits for a fold, so its chain of steps is the
//               critical path;
//     unfold    a + c/B (reduce-scatter: the extra member's chunk) or a + s/B (allgather: the whole result,
//               one message rather than the two around the member's own chunk).
//   Both: (m + 2) a + (k + p' + sum_{i<m} min(e, 2^i)) c/B.
double halving_doubling_half_time(int k, double s, double alpha, double bandwidth) {
  if (k <= 1) return 0.0;
  int core = 1, steps = 0;
  while (core * 2 <= k) core *= 2, ++steps;
  const int extra = k - core;
  double chunks = core - 1;
  for (int i = 0; i < steps; ++i) chunks += std::min(extra, 1 << i);
  int rounds = steps;
  if (extra > 0) {
    rounds += 2;
    chunks += k + 1;
  }
  return rounds * alpha + chunks * (s / k) / bandwidth;
}

}  // namespace

bool is_power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }

Schedule halving_doubling_reduce_scatter_to(const Line& line, const std::vector<ElementRange>& owned) {
  return reduce_scatter(line, owned, true);
}

Schedule halving_doubling_allgather_from(const Line& line, const std::vector<ElementRange>& owned) {
  return allgather(line, owned, true);
}

Schedule halving_doubling_reduce_scatter(const Line& line, ElementRange range,
                                         std::vector<ElementRange>& owned) {
  const int p = static_cast<int>(line.size());
  TPUSIM_CHECK(is_power_of_two(p));
  const auto chunks = balanced_split(range, p);
  owned.assign(p, {});
  const int bits = log2_floor(p);
  for (int j = 0; j < p; ++j) owned[j] = chunks[bit_reverse(j, bits)];
  return reduce_scatter(line, owned, false);
}

Schedule halving_doubling_allgather(const Line& line, const std::vector<ElementRange>& owned) {
  return allgather(line, owned, false);
}

// The extra positions fold the whole range in and get the whole result back; the core splits the range in
// p' chunks, member c keeping chunk bit_reverse(c).
Schedule halving_doubling_allreduce(const Line& line, ElementRange range) {
  const int p = static_cast<int>(line.size());
  if (p < 2) return {};
  const int bits = log2_floor(p);
  auto plan = std::make_shared<Plan>();
  plan->line = line;
  plan->owned.assign(p, range);  // what the fold moves
  plan->extra = p - (1 << bits);
  const auto chunks = balanced_split(range, 1 << bits);
  for (int c = 0; c < (1 << bits); ++c) {
    plan->members.push_back(line[core_position(c, plan->extra)]);
    plan->ranges.push_back({chunks[bit_reverse(c, bits)]});
  }
  Schedule schedule = fold_round(plan, true, Action::reduce, own_range);
  schedule.then(halving_steps(plan));
  schedule.then(doubling_steps(plan));
  schedule.then(fold_round(plan, false, Action::copy, own_range));
  return schedule;
}

const LineOperations halving_doubling_line = {
    halving_doubling_reduce_scatter,    halving_doubling_allgather,      halving_doubling_allreduce,
    halving_doubling_reduce_scatter_to, halving_doubling_allgather_from, true};

// The allreduce is a reduce-scatter then an allgather, except on other sizes than powers of two, where it
// folds the whole buffer in and out (2(a + S/B)) around the power-of-two allreduce of p' members.
ClosedForm halving_doubling_closed_form(const ClosedFormInput& input) {
  const int p = input.members();
  const double s = input.bytes, alpha = input.alpha, bandwidth = input.bandwidth;
  const bool power_of_two = is_power_of_two(p);
  switch (input.kind) {
    case CollectiveKind::allreduce: {
      const char* formula = power_of_two ? "2 log2(p) a + 2(p-1)/p S/B"
                                         : "2(a + S/B) + 2 log2(p') a + 2(p'-1)/p' S/B, p' = 2^floor(log2 p)";
      if (p <= 1) return {0.0, formula};
      if (power_of_two) return {2 * halving_doubling_half_time(p, s, alpha, bandwidth), formula};
      int core = 1;
      while (core * 2 <= p) core *= 2;
      return {2 * (alpha + s / bandwidth) + 2 * halving_doubling_half_time(core, s, alpha, bandwidth),
              formula};
    }
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::allgather:
      return {halving_doubling_half_time(p, s, alpha, bandwidth),
              power_of_two ? "log2(p) a + (p-1)/p S/B"
                           : "(log2(p')+2) a + (p + p' + sum_{i<log2 p'} min(e, 2^i)) S/(pB), p' = "
                             "2^floor(log2 p), e = p-p'"};
    default:
      return {};
  }
}

}  // namespace tpusim::sim::algorithms
