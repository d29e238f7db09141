// The halving-doubling schedules without the simulator: any assignment of disjoint ranges (out of order,
// with gaps, empty) reaches the right result on a plain interpreter, and chunk i at position i moves as one
// message per partner and step.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>

#include "sim/algorithms/algorithms.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

using Line = algorithms::Line;
using HalvingBuffers = std::map<Rank, std::vector<double>>;

bool overlap(const ElementRange& a, const ElementRange& b) {
  return a.count > 0 && b.count > 0 && a.offset < b.end() && b.offset < a.end();
}

// Runs the schedule round by round, every transfer reading its source as the round began. The executor
// may start some of a rank's transfers of a round before others of that round end, so this is its result
// only if no rank is written in a round where it is read (checked). Also checks that the transfers between
// two ranks in one round are not adjacent: adjacent ranges go as one message.
void interpret(const Schedule& schedule, HalvingBuffers& buffers) {
  std::vector<Transfer> round;
  for (std::size_t k = 0; k < schedule.round_count(); ++k) {
    round.clear();
    schedule.append_round(k, round);
    std::map<Rank, std::vector<ElementRange>> reads, writes;
    std::map<std::pair<Rank, Rank>, std::vector<ElementRange>> between;
    for (const auto& t : round) {
      reads[t.src].push_back({t.src_offset, t.count});
      writes[t.dst].push_back({t.dst_offset, t.count});
      between[{t.src, t.dst}].push_back({t.src_offset, t.count});
    }
    for (const auto& [rank, read] : reads) {
      for (const auto& r : read) {
        for (const auto& w : writes[rank]) CHECK_FALSE(overlap(r, w));
      }
    }
    for (auto& [pair, ranges] : between) {
      std::sort(ranges.begin(), ranges.end(),
                [](const ElementRange& a, const ElementRange& b) { return a.offset < b.offset; });
      for (std::size_t i = 1; i < ranges.size(); ++i) CHECK(ranges[i - 1].end() < ranges[i].offset);
    }
    std::vector<std::vector<double>> payloads;
    for (const auto& t : round) {
      const auto& source = buffers.at(t.src);
      payloads.emplace_back(source.begin() + t.src_offset, source.begin() + t.src_offset + t.count);
    }
    for (std::size_t i = 0; i < round.size(); ++i) {
      const auto& t = round[i];
      auto& target = buffers.at(t.dst);
      for (std::uint64_t e = 0; e < t.count; ++e) {
        double& out = target[t.dst_offset + e];
        out = t.action == Action::copy ? payloads[i][e] : out + payloads[i][e];
      }
    }
  }
}

Line line_of(int p) {
  Line line;
  for (int i = 0; i < p; ++i) line.push_back(i);
  return line;
}

HalvingBuffers random_buffers(int p, std::uint64_t n, std::mt19937& random) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  HalvingBuffers buffers;
  for (int i = 0; i < p; ++i) {
    auto& buffer = buffers[i];
    buffer.resize(n);
    for (auto& x : buffer) x = uniform(random);
  }
  return buffers;
}

// p disjoint ranges of [0, n) in random order, some empty, with unowned gaps between them.
std::vector<ElementRange> random_assignment(int p, std::uint64_t n, std::mt19937& random) {
  std::vector<std::uint64_t> cuts = {0, n};
  for (int i = 0; i < 2 * p; ++i) cuts.push_back(std::uniform_int_distribution<std::uint64_t>(0, n)(random));
  std::sort(cuts.begin(), cuts.end());
  std::vector<ElementRange> pieces;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) pieces.push_back({cuts[i], cuts[i + 1] - cuts[i]});
  std::shuffle(pieces.begin(), pieces.end(), random);
  pieces.resize(p);
  return pieces;
}

void check_reduce_scatter(const Schedule& schedule, int p, const std::vector<ElementRange>& owned,
                          HalvingBuffers buffers) {
  const HalvingBuffers inputs = buffers;
  interpret(schedule, buffers);
  for (int i = 0; i < p; ++i) {
    for (std::uint64_t e = owned[i].offset; e < owned[i].end(); ++e) {
      double sum = 0;
      for (int m = 0; m < p; ++m) sum += inputs.at(m)[e];
      CHECK(std::fabs(buffers.at(i)[e] - sum) <= 1e-12);
    }
  }
}

void check_allgather(const Schedule& schedule, int p, const std::vector<ElementRange>& owned,
                     HalvingBuffers buffers) {
  const HalvingBuffers inputs = buffers;
  interpret(schedule, buffers);
  for (int m = 0; m < p; ++m) {
    for (int i = 0; i < p; ++i) {
      for (std::uint64_t e = owned[i].offset; e < owned[i].end(); ++e) {
        CHECK(buffers.at(m)[e] == inputs.at(i)[e]);
      }
    }
  }
}

int log2_floor(int p) {
  int bits = 0;
  while ((2 << bits) <= p) ++bits;
  return bits;
}

}  // namespace

TEST_CASE("recursive halving and doubling reach any assignment of disjoint ranges") {
  std::mt19937 random(5);
  for (const int p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16}) {
    for (int trial = 0; trial < 20; ++trial) {
      const auto n = std::uniform_int_distribution<std::uint64_t>(0, 300)(random);
      const auto owned = random_assignment(p, n, random);
      const auto buffers = random_buffers(p, n, random);
      INFO("p=" << p << " n=" << n << " trial " << trial);
      check_reduce_scatter(algorithms::halving_doubling_reduce_scatter_to(line_of(p), owned), p, owned,
                           buffers);
      check_allgather(algorithms::halving_doubling_allgather_from(line_of(p), owned), p, owned, buffers);
      check_allgather(algorithms::halving_doubling_allgather(line_of(p), owned), p, owned, buffers);
    }
  }
}

TEST_CASE("the reduce-scatter that chooses its assignment and its inverse allgather round-trip") {
  std::mt19937 random(9);
  for (const int p : {1, 2, 4, 8, 16}) {
    for (const std::uint64_t n : {0, 3, 17, 1000}) {
      std::vector<ElementRange> owned;
      const auto schedule = algorithms::halving_doubling_reduce_scatter(line_of(p), {0, n}, owned);
      REQUIRE(owned.size() == static_cast<std::size_t>(p));
      const auto buffers = random_buffers(p, n, random);
      INFO("p=" << p << " n=" << n);
      check_reduce_scatter(schedule, p, owned, buffers);
      check_allgather(algorithms::halving_doubling_allgather(line_of(p), owned), p, owned, buffers);
    }
  }
}

TEST_CASE("chunk i at position i moves as one message per partner and step") {
  for (int p = 2; p <= 33; ++p) {
    const int core = 1 << log2_floor(p);
    std::vector<ElementRange> owned;
    for (int i = 0; i < p; ++i) owned.push_back({static_cast<std::uint64_t>(10 * i), 10});
    for (const auto& schedule : {algorithms::halving_doubling_reduce_scatter_to(line_of(p), owned),
                                 algorithms::halving_doubling_allgather_from(line_of(p), owned)}) {
      INFO("p=" << p);
      // log2 p' steps, and the fold's round before and after them.
      CHECK(schedule.round_count() == static_cast<std::size_t>(log2_floor(p) + (core < p ? 2 : 0)));
      std::vector<Transfer> round;
      for (std::size_t k = 0; k < schedule.round_count(); ++k) {
        round.clear();
        schedule.append_round(k, round);
        std::map<std::pair<Rank, Rank>, int> messages;
        for (const auto& t : round) CHECK(++messages[{t.src, t.dst}] == 1);
      }
    }
  }
}

namespace {

// What step `step` of the power-of-two core sends, by the definition: the core members are the line's
// positions 2c (c < e) and then the positions after the folded pairs; member c stands for its own range and,
// when c < e, for the folded member's. Halving step h pairs c with c xor mask_h and hands over the ranges of
// the core indices that agree with the partner on mask_0..mask_h; doubling step s mirrors halving step
// h = m-1-s and hands over those that agree with c itself. Adjacent ranges go as one message.
std::vector<Transfer> defined_step(int p, const std::vector<ElementRange>& owned, bool furthest_first,
                                   bool halving, int step) {
  const int m = log2_floor(p), q = 1 << m, e = p - q;
  const int h = halving ? step : m - 1 - step;
  auto mask = [&](int j) { return furthest_first ? q >> (j + 1) : 1 << j; };
  auto position = [&](int c) { return c < e ? 2 * c : c + e; };
  std::vector<Transfer> out;
  for (int c = 0; c < q; ++c) {
    const int partner = c ^ mask(h);
    const int side = halving ? partner : c;
    std::vector<ElementRange> ranges;
    for (int i = 0; i < q; ++i) {
      bool agrees = true;
      for (int j = 0; j <= h; ++j) agrees = agrees && ((i ^ side) & mask(j)) == 0;
      if (!agrees) continue;
      ranges.push_back(owned[position(i)]);
      if (i < e) ranges.push_back(owned[position(i) + 1]);
    }
    std::sort(ranges.begin(), ranges.end(),
              [](const ElementRange& a, const ElementRange& b) { return a.offset < b.offset; });
    std::vector<ElementRange> runs;
    for (const auto& r : ranges) {
      if (r.count == 0) continue;
      if (!runs.empty() && runs.back().end() == r.offset) {
        runs.back().count += r.count;
      } else {
        runs.push_back(r);
      }
    }
    for (const auto& r : runs) {
      out.push_back({position(c), position(partner), r.offset, r.offset, r.count,
                     halving ? Action::reduce : Action::copy});
    }
  }
  return out;
}

void check_steps_as_defined(const Schedule& schedule, int p, const std::vector<ElementRange>& owned,
                            bool furthest_first, bool halving) {
  const int m = log2_floor(p);
  const std::size_t first = p > (1 << m) ? 1 : 0;  // the fold's round
  REQUIRE(schedule.round_count() == first * 2 + m);
  for (int step = 0; step < m; ++step) {
    std::vector<Transfer> round;
    schedule.append_round(first + step, round);
    const auto defined = defined_step(p, owned, furthest_first, halving, step);
    INFO("step " << step);
    REQUIRE(round.size() == defined.size());
    for (std::size_t i = 0; i < round.size(); ++i) {
      CHECK(round[i].src == defined[i].src);
      CHECK(round[i].dst == defined[i].dst);
      CHECK(round[i].src_offset == defined[i].src_offset);
      CHECK(round[i].dst_offset == defined[i].dst_offset);
      CHECK(round[i].count == defined[i].count);
      CHECK(round[i].action == defined[i].action);
    }
  }
}

}  // namespace

TEST_CASE("every recursive step sends what its definition says, one message per run, in member order") {
  std::mt19937 random(23);
  for (const int p : {2, 3, 5, 8, 11, 16, 21, 32, 40, 64}) {
    for (int trial = 0; trial < 4; ++trial) {
      const auto n = std::uniform_int_distribution<std::uint64_t>(0, 3 * p)(random);
      // Chosen assignments (chunk i at position i, a few elements each or none) and random ones.
      std::vector<ElementRange> owned;
      if (trial == 0) {
        for (const auto& chunk : balanced_split({0, n}, p)) owned.push_back(chunk);
      } else {
        owned = random_assignment(p, n, random);
      }
      INFO("p=" << p << " n=" << n << " trial " << trial);
      check_steps_as_defined(algorithms::halving_doubling_reduce_scatter_to(line_of(p), owned), p, owned,
                             true, true);
      check_steps_as_defined(algorithms::halving_doubling_allgather_from(line_of(p), owned), p, owned, true,
                             false);
      check_steps_as_defined(algorithms::halving_doubling_allgather(line_of(p), owned), p, owned, false,
                             false);
    }
  }
}
