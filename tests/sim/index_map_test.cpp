// An index map takes a part's virtual order to its pieces of the buffer: checked against a plain table of
// where each virtual index lives, built here element by element, on random maps and ranges; and a laid-out
// schedule hands every transfer the map and keeps its rounds and their repeats.
#include "sim/index_map.hpp"

#include <catch2/catch.hpp>
#include <numeric>
#include <random>

#include "sim/schedule.hpp"

using namespace tpusim::sim;

TEST_CASE("an index map's pieces of a virtual range are the buffer offsets of its elements") {
  std::mt19937 random(1201);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(random);
  };
  for (int trial = 0; trial < 200; ++trial) {
    // Random pieces (some empty) of a buffer, shuffled into a virtual order.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> slices;  // (buffer offset, count)
    std::uint64_t buffer = 0;
    for (std::uint64_t k = pick(1, 12); k > 0; --k) {
      const std::uint64_t count = pick(0, 9);
      slices.push_back({buffer, count});
      buffer += count + pick(0, 3);  // gaps: elements no part of this map touches
    }
    std::shuffle(slices.begin(), slices.end(), random);
    std::vector<IndexMap::Piece> pieces;
    std::vector<std::uint64_t> where;  // where[v]: buffer offset of virtual element v
    for (const auto& [offset, count] : slices) {
      pieces.push_back({where.size(), offset, count});
      for (std::uint64_t e = 0; e < count; ++e) where.push_back(offset + e);
    }
    const IndexMap map(pieces);
    REQUIRE(map.size() == where.size());
    if (where.empty()) continue;
    for (int range = 0; range < 20; ++range) {
      const std::uint64_t offset = pick(0, where.size() - 1);
      const std::uint64_t count = pick(0, where.size() - offset);
      std::vector<std::uint64_t> walked;
      map.for_each_piece(offset, count, [&](std::uint64_t at, std::uint64_t n) {
        CHECK(n > 0);
        for (std::uint64_t e = 0; e < n; ++e) walked.push_back(at + e);
      });
      INFO("trial " << trial << " range " << offset << "+" << count);
      CHECK(walked == std::vector<std::uint64_t>(where.begin() + offset, where.begin() + offset + count));
    }
  }
}

TEST_CASE("a laid-out schedule gives its transfers the map and keeps rounds and repeats") {
  auto map = std::make_shared<const IndexMap>(std::vector<IndexMap::Piece>{{0, 10, 4}, {4, 0, 4}});
  Schedule inner;
  inner.then(
      3,
      [](std::size_t round, std::vector<Transfer>& out) {
        add(out, {0, 1, round, round, 2, Action::copy});
      },
      [](std::size_t round) { return round == 2; });
  const Schedule laid = laid_out(std::move(inner), map);
  REQUIRE(laid.round_count() == 3);
  CHECK_FALSE(laid.repeats_previous(1));
  CHECK(laid.repeats_previous(2));
  for (std::size_t round = 0; round < 3; ++round) {
    std::vector<Transfer> out{Transfer{}};  // a transfer of another part already in the round: not touched
    laid.append_round(round, out);
    REQUIRE(out.size() == 2);
    CHECK(out[0].layout == nullptr);
    CHECK(out[1].layout == map.get());
    CHECK(out[1].src_offset == round);
  }
}
