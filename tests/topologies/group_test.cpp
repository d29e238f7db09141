#include "topologies/group.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "topologies/chip_graph.hpp"
#include "topologies/presets.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::topo;

namespace {
// Hops between the chips of two cores: 0 on one chip.
int core_hops(const Topology& topology, Rank a, Rank b) {
  return hop_count(topology, chip_of(topology, a), chip_of(topology, b));
}
}  // namespace

TEST_CASE("snake order visits every position once and steps by one coordinate") {
  const auto order = snake_order({2, 3, 4});
  REQUIRE(order.size() == 24);
  std::set<std::vector<int>> seen(order.begin(), order.end());
  CHECK(seen.size() == 24);
  for (std::size_t i = 1; i < order.size(); ++i) {
    int changed = 0;
    for (std::size_t k = 0; k < 3; ++k) changed += std::abs(order[i][k] - order[i - 1][k]);
    CHECK(changed == 1);
  }
  CHECK(order.front() == std::vector<int>{0, 0, 0});
  CHECK(order.back() == std::vector<int>{0, 0, 3});
}

TEST_CASE("groups along merged axes are rings of one-hop neighbours on the pod") {
  const Topology pod = preset("tpu-v2-pod");
  const auto groups = groups_along(pod, parse_group_axes(pod, "core+x"));
  REQUIRE(groups.size() == 16);
  for (const auto& group : groups) {
    REQUIRE(group.size() == 32);
    for (int i = 0; i < group.size(); ++i) {
      CHECK(core_hops(pod, group.ranks[i], group.ranks[(i + 1) % group.size()]) <= 1);
    }
  }
}

TEST_CASE("groups are disjoint and cover every core") {
  const Topology pod = preset("tpu-v2-32");
  for (const char* axes : {"core", "x", "y", "core+x,y", "x,y", "all", "y+core"}) {
    std::set<Rank> all;
    for (const auto& group : groups_along(pod, parse_group_axes(pod, axes))) {
      for (const Rank rank : group.ranks) CHECK(all.insert(rank).second);
    }
    CHECK(all.size() == 32u);
  }
}

TEST_CASE("a two-dimensional group is addressed by position") {
  const Topology pod = preset("tpu-v2-32");
  const auto groups = groups_along(pod, parse_group_axes(pod, "core+x,y"));
  REQUIRE(groups.size() == 1);
  const Group& group = groups[0];
  CHECK(group.dims == std::vector<int>{8, 4});
  CHECK(group.at({0, 0}) == 0);
  CHECK(group.at({1, 0}) == 1);
  CHECK(group.at({2, 0}) == 3);  // snake: chip 1, core 1 follows chip 0, core 1
  CHECK(group.at({0, 1}) == rank_of(pod, {0, {0, 1}}));
}

TEST_CASE("rejects unknown and repeated group axes") {
  const Topology ring = preset("ring-8");
  CHECK_THROWS_WITH(parse_group_axes(ring, "x,y"),
                    "unknown axis 'y' for topology 'ring-8' (did you mean 'x'?); valid axes are core, x");
  CHECK_THROWS_WITH(parse_group_axes(ring, "x+x"), "group axes 'x+x': axis 'x' appears twice");
}

TEST_CASE("rejects hand-written groups naming missing or repeated cores") {
  const Topology ring = preset("ring-8");
  CHECK_THROWS_WITH(validate_group(ring, Group{{2}, {0, 9}}),
                    "group names core 9 but topology 'ring-8' has cores 0..7");
  CHECK_THROWS_WITH(validate_group(ring, Group{{2}, {3, 3}}), "group names core 3 twice");
  CHECK_THROWS_WITH(validate_group(ring, Group{{3}, {1, 2}}),
                    "group has 2 cores but its dimensions multiply to 3");
  CHECK_NOTHROW(validate_group(ring, Group{{3}, {5, 1, 2}}));
  // 2^16 four times is 2^64, which wraps to 0 in 64 bits: it must not match an empty group.
  CHECK_THROWS_WITH(validate_group(ring, Group{{65536, 65536, 65536, 65536}, {}}),
                    "group has 0 cores but its dimensions multiply to more than 65536");
}
