// Faults: the text, what it names, the routes around links that are down (checked against a breadth-first
// search written here), and every bad item as one line.
#include "topologies/faults.hpp"

#include <catch2/catch.hpp>
#include <deque>
#include <optional>
#include <random>

#include "topologies/presets.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;
using namespace tpusim::topo;

namespace {

std::string error_of(const std::string& spec, const std::string& text) {
  try {
    topology_from_spec(spec).with_faults(text);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

// Hops from `from` to `to` over the links of the pod not named down: plain breadth-first search over chip
// coordinates, every link listed from its owner (the chip below it along its dimension).
int reference_hops(const Topology& topology, const std::set<int>& down, int from, int to) {
  const auto& dims = topology.chip_dims();
  const int n = topology.num_chips(), D = static_cast<int>(dims.size());
  std::vector<std::vector<int>> adjacent(n);
  for (int chip = 0; chip < n; ++chip) {
    auto coord = chip_coord(topology, chip);
    for (int d = 0; d < D; ++d) {
      if (dims[d] < 2 || (!topology.wraparound() && coord[d] + 1 == dims[d])) continue;
      if (down.count(chip * D + d)) continue;
      auto next = coord;
      next[d] = (coord[d] + 1) % dims[d];
      adjacent[chip].push_back(chip_id(topology, next));
      adjacent[chip_id(topology, next)].push_back(chip);
    }
  }
  std::vector<int> distance(n, -1);
  distance[from] = 0;
  std::deque<int> queue{from};
  while (!queue.empty()) {
    const int c = queue.front();
    queue.pop_front();
    for (const int next : adjacent[c]) {
      if (distance[next] < 0) {
        distance[next] = distance[c] + 1;
        queue.push_back(next);
      }
    }
  }
  return distance[to];
}

}  // namespace

TEST_CASE("faults name links and chips by coordinates and write them back canonically") {
  const auto topology = preset("tpu-v2-pod").with_faults("slow:3.4+y:0.25; down:3.4+x;straggler:15.15:2");
  const auto& faults = topology.faults();
  const int x_link = chip_id(topology, {3, 4}) * 2 + 0, y_link = chip_id(topology, {3, 4}) * 2 + 1;
  CHECK(faults.is_down(x_link));
  CHECK_FALSE(faults.is_down(y_link));
  CHECK(faults.bandwidth_factor(y_link) == 0.25);
  CHECK(faults.bandwidth_factor(x_link) == 1.0);
  CHECK(faults.straggler_factor(chip_id(topology, {15, 15})) == 2.0);
  CHECK(faults.slowest_straggler() == 2.0);
  CHECK(faults.text() == "down:3.4+x;slow:3.4+y:0.25;straggler:15.15:2");
  CHECK(preset("tpu-v2-pod").faults().empty());
  CHECK(preset("tpu-v2-pod").with_faults("").faults().text().empty());
}

TEST_CASE("random faults are distinct links, the same for one seed, and avoid the links named") {
  const auto a = preset("tpu-v2-pod").with_faults("random:20:7").faults();
  const auto b = preset("tpu-v2-pod").with_faults("random:20:7").faults();
  const auto c = preset("tpu-v2-pod").with_faults("random:20:8").faults();
  CHECK(a.down_links().size() == 20);
  CHECK(a.down_links() == b.down_links());
  CHECK(a.down_links() != c.down_links());
  const auto named = preset("torus-4x4").with_faults("down:0.0+x;random:3:1").faults();
  CHECK(named.down_links().size() == 4);
  CHECK(named.is_down(0));
  CHECK(error_of("torus-4x4", "down:0.0+x;random:32:1") ==
        "fault 'random:32:1': only 31 links are left to draw from");
}

TEST_CASE("routes around links that are down are shortest paths over the links left") {
  std::mt19937 random(11);
  for (const char* spec : {"torus:6x5", "torus:4x4x3", "mesh-4x4", "torus:8"}) {
    for (int trial = 0; trial < 4; ++trial) {
      const auto topology = topology_from_spec(spec);
      const int links = topology.num_chips() * static_cast<int>(topology.chip_dims().size());
      Faults faults;
      std::optional<Topology> faulty;
      std::string text = "random:" + std::to_string(1 + random() % 4) + ":" + std::to_string(random() % 1000);
      try {
        faulty = topology.with_faults(text);
        faults = faulty->faults();
      } catch (const InputError&) {
        continue;  // the draw cut the pod (a ring of 8 with two links down): refused, as the next case checks
      }
      INFO(spec << " " << faults.text());
      for (int from = 0; from < topology.num_chips(); ++from) {
        for (int to = 0; to < topology.num_chips(); ++to) {
          if (from == to) continue;
          int hops = 0;
          for (int at = from; at != to; ++hops) {
            const int hop = faulty->route_table()->first_hop(at, to);
            const int d = hop / 2, D = static_cast<int>(topology.chip_dims().size());
            const int next = neighbour_chip(topology, at, hop);
            const int link = (hop % 2 == 0 ? at : next) * D + d;
            REQUIRE(link < links);
            REQUIRE_FALSE(faults.is_down(link));
            at = next;
            REQUIRE(hops < topology.num_chips());
          }
          CHECK(hops == reference_hops(topology, faults.down_links(), from, to));
        }
      }
    }
  }
}

TEST_CASE("bad faults are one line naming the item") {
  CHECK(error_of("tpu-v2-32", "down:9.9+x") ==
        "fault 'down:9.9+x': chip coordinate x: 9 is out of range: expected 0 to 3");
  CHECK(error_of("tpu-v2-32", "down:0.0+z") ==
        "fault 'down:0.0+z': unknown axis 'z'; the pod's axes are x, y");
  CHECK(error_of("tpu-v2-32", "slow:0.0+x:0") ==
        "fault 'slow:0.0+x:0': factor '0' must be a number from 0.001 to 1 (down: for a link that is off)");
  CHECK(error_of("tpu-v2-32", "slow:0.0+x:-2") ==
        "fault 'slow:0.0+x:-2': factor '-2' must be a number from 0.001 to 1 (down: for a link that is off)");
  CHECK(error_of("tpu-v2-32", "straggler:0.0:0.5") ==
        "fault 'straggler:0.0:0.5': factor '0.5' must be a number from 1 to 100");
  CHECK(error_of("tpu-v2-32", "down:0.0") ==
        "fault 'down:0.0': a link is a chip and the axis of its + neighbour, such as 0.0+x");
  CHECK(error_of("tpu-v2-32", "fast:0.0+x") ==
        "fault 'fast:0.0+x': unknown kind 'fast'; the kinds are down, slow, straggler, random");
  CHECK(error_of("tpu-v2-32", "random:0:1") == "fault 'random:0:1': 0 is out of range: expected 1 to 32");
  CHECK(error_of("tpu-v2-32", "down:0.0+x;slow:0.0+x:0.5") ==
        "fault: link 0.0+x is named both down and slow");
  CHECK(error_of("mesh-4x4", "down:3.0+x") ==
        "fault 'down:3.0+x': chip 3.0 has no link to a + neighbour along x");
  CHECK(error_of("torus:64x64", "down:0.0+x") ==
        "faults with links down are simulated on pods of up to 1024 chips; this one has 4096");
  CHECK(error_of("ring-8", "down:0+x;down:4+x") ==
        "faults cut chip 1 off from chip 0; a pod must stay connected");
  CHECK(error_of("tpu-v2-32", "down:0.0+x;") == "faults 'down:0.0+x;': an empty item between ';'");
}
