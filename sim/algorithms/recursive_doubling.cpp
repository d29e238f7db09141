// Recursive doubling allreduce along each group dimension in turn: on a line of k members, log2 k steps in
// which member j exchanges its whole buffer with j xor 1, j xor 2, ... and reduces what it receives. Each
// step costs one latency and the whole message, so on small messages it beats the rings' 2(k-1) steps and
// Rabenseifner's 2 log2 k; along the dimensions of a torus ("core,x,y") the partners of a dimension are
// 1, 2, 4, ... hops away, k-1 hops in all, the dimension's diameter order. Sizes that are not powers of two
// use the standard fold (as halving_doubling.cpp): with k' the largest power of two below k and e = k - k',
// position 2i+1 (i < e) first hands its buffer to 2i, the k' others run the steps, and 2i hands back the
// result.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/composition.hpp"

namespace tpusim::sim::algorithms {
namespace {

int largest_power_of_two_in(int k) {
  int power = 1;
  while (power * 2 <= k) power *= 2;
  return power;
}

// The rounds of one line: the fold (when k is not a power of two), the exchanges, the unfold.
std::vector<std::vector<Transfer>> line_rounds(const Line& line, ElementRange range) {
  const int k = static_cast<int>(line.size());
  const int core = largest_power_of_two_in(k);
  const int extra = k - core;
  // Line position of core member c: the first of its pair for c < extra, after the pairs for the others.
  auto position = [extra](int c) { return c < extra ? 2 * c : c + extra; };
  std::vector<std::vector<Transfer>> rounds;
  if (extra > 0) {
    rounds.emplace_back();
    for (int i = 0; i < extra; ++i)
      add(rounds.back(),
          {line[2 * i + 1], line[2 * i], range.offset, range.offset, range.count, Action::reduce});
  }
  for (int mask = 1; mask < core; mask *= 2) {
    rounds.emplace_back();
    for (int c = 0; c < core; ++c) {
      const Rank self = line[position(c)], partner = line[position(c ^ mask)];
      add(rounds.back(), {self, partner, range.offset, range.offset, range.count, Action::reduce});
    }
  }
  if (extra > 0) {
    rounds.emplace_back();
    for (int i = 0; i < extra; ++i)
      add(rounds.back(),
          {line[2 * i], line[2 * i + 1], range.offset, range.offset, range.count, Action::copy});
  }
  return rounds;
}

// sim/README.md, Closed forms: one line of k over one-hop links: ceil(log2 k) + 1 exchanges of the whole S
// when k is not a power of two (fold and unfold are one each, the steps log2 k'), log2 k when it is.
double line_time(int k, double s, double alpha, double bandwidth) {
  if (k <= 1) return 0;
  const int core = largest_power_of_two_in(k);
  int steps = 0;
  for (int mask = 1; mask < core; mask *= 2) ++steps;
  if (core != k) steps += 2;
  return steps * (alpha + s / bandwidth);
}

}  // namespace

Schedule recursive_doubling_allreduce(const topo::Group& group, const AlgorithmInput& input) {
  const ElementRange whole{0, input.request.elements};
  Schedule schedule;
  for (int d = 0; d < static_cast<int>(group.dims.size()); ++d) {
    std::vector<Schedule> lines;
    for (const auto& line : lines_along(group, d))
      lines.push_back(materialized(line_rounds(line.ranks, whole)));
    schedule.then(concurrently(std::move(lines)));
  }
  return schedule;
}

ClosedForm recursive_doubling_closed_form(const ClosedFormInput& input) {
  if (input.kind != CollectiveKind::allreduce) return {};
  double total = 0;
  for (const int k : input.dims) total += line_time(k, input.bytes, input.alpha, input.bandwidth);
  ClosedForm form{total,
                  "sum over dimensions of log2(k) (a + S/B), 2 more steps where k is not a power of two"};
  form.exact_multiple = 1;  // the whole buffer moves: nothing is split
  return form;
}

}  // namespace tpusim::sim::algorithms
