// Unidirectional ring (Patarasuk and Yuan): reduce-scatter then allgather, p-1 steps each; every step moves
// one chunk to the next position, so each link carries (p-1)/p of the data per phase.
#include <algorithm>
#include <memory>

#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim::algorithms {
namespace {

struct RingPlan {
  Line line;
  std::vector<ElementRange> owned;
  // The chunks that hold elements, in chunk order: a round sends only these (empty chunks send no message),
  // so a ring of 65,536 members moving 512 one-element chunks costs 512 steps a round, not 65,536.
  std::vector<std::size_t> nonempty;
  // The smallest d dividing p with owned[i].count == owned[(i + d) % p].count for all i: step s + d then
  // sends the same sizes from the same positions as step s.
  std::size_t period = 1;
};

std::size_t wrap(long long value, std::size_t p) {
  const long long m = static_cast<long long>(p);
  return static_cast<std::size_t>(((value % m) + m) % m);
}

std::size_t ring_count_period(const std::vector<ElementRange>& owned) {
  const std::size_t p = owned.size();
  for (std::size_t d = 1; d < p; ++d) {
    if (p % d != 0) continue;
    bool periodic = true;
    for (std::size_t i = 0; i + d < p && periodic; ++i) periodic = owned[i].count == owned[i + d].count;
    if (periodic) return d;
  }
  return p;
}

// p-1 steps; at step s position i sends chunk (i - s - first_chunk_lag) to position i+1, which applies it.
Schedule ring_pass(const Line& line, const std::vector<ElementRange>& owned, long long first_chunk_lag,
                   Action action) {
  Schedule schedule;
  const std::size_t p = line.size();
  if (p < 2) return schedule;
  auto plan = std::make_shared<RingPlan>(RingPlan{line, owned, {}, ring_count_period(owned)});
  for (std::size_t c = 0; c < p; ++c) {
    if (owned[c].count > 0) plan->nonempty.push_back(c);
  }
  // Every step sends one chunk from each member to the next: step s + period sends the sizes step s sent
  // from the same positions, only other offsets (with chunks of one size, the period is 1).
  const std::size_t period = plan->period;
  schedule.then(
      p - 1,
      [plan, p, first_chunk_lag, action](std::size_t step, std::vector<Transfer>& out) {
        const auto send = [&](std::size_t i, const ElementRange& chunk) {
          add(out, {plan->line[i], plan->line[(i + 1) % p], chunk.offset, chunk.offset, chunk.count, action});
        };
        if (plan->nonempty.size() == p) {
          for (std::size_t i = 0; i < p; ++i)
            send(i, plan->owned[wrap(static_cast<long long>(i) - static_cast<long long>(step) - first_chunk_lag,
                                     p)]);
          return;
        }
        // Chunk c is at position (c + shift) mod p: the chunks from the first that wraps come first, so
        // the transfers are in position order, as the loop over all positions gives them.
        const std::size_t shift = wrap(static_cast<long long>(step) + first_chunk_lag, p);
        const auto& nonempty = plan->nonempty;
        const auto wraps = std::lower_bound(nonempty.begin(), nonempty.end(), p - shift);
        for (auto it = wraps; it != nonempty.end(); ++it) send(*it + shift - p, plan->owned[*it]);
        for (auto it = nonempty.begin(); it != wraps; ++it) send(*it + shift, plan->owned[*it]);
      },
      [period](std::size_t, std::size_t back) { return back % period == 0; });
  return schedule;
}

// The ring keeps balanced chunks in position order when it chooses the assignment.
Schedule reduce_scatter_choosing(const Line& line, ElementRange range, std::vector<ElementRange>& owned) {
  owned = balanced_split(range, line.size());
  return ring_reduce_scatter(line, owned);
}

// sim/README.md, Closed forms: one reduce-scatter or allgather on a line of k members: (k-1) a + (k-1)/k S/B.
double ring_half_time(int k, double s, double alpha, double bandwidth) {
  if (k <= 1) return 0.0;
  const double fraction = static_cast<double>(k - 1) / k;
  return (k - 1) * alpha + fraction * s / bandwidth;
}

}  // namespace

// Chunk c starts at position c+1 and gathers one contribution per step, reaching position c after p-1 steps.
Schedule ring_reduce_scatter(const Line& line, const std::vector<ElementRange>& owned) {
  return ring_pass(line, owned, 1, Action::reduce);
}

// Chunk c starts at its owner, position c, and is copied one position further each step.
Schedule ring_allgather(const Line& line, const std::vector<ElementRange>& owned) {
  return ring_pass(line, owned, 0, Action::copy);
}

Schedule ring_allreduce(const Line& line, ElementRange range) {
  const auto owned = balanced_split(range, line.size());
  Schedule schedule = ring_reduce_scatter(line, owned);
  schedule.then(ring_allgather(line, owned));
  return schedule;
}

const LineOperations ring_line = {reduce_scatter_choosing, ring_allgather, ring_allreduce,
                                  ring_reduce_scatter,     ring_allgather, false};

ClosedForm ring_closed_form(const ClosedFormInput& input) {
  const int p = input.members();
  const double half = ring_half_time(p, input.bytes, input.alpha, input.bandwidth);
  switch (input.kind) {
    case CollectiveKind::allreduce:
      return {p <= 1 ? 0.0 : 2 * half, "2(p-1)a + 2(p-1)/p S/B"};
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::allgather:
      return {half, "(p-1)a + (p-1)/p S/B"};
    default:
      return {};
  }
}

}  // namespace tpusim::sim::algorithms
