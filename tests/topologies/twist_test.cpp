// Twisted tori (topologies/twist.hpp) against an adjacency written out in the test from the definition
// (Camara et al., IEEE TPDS 2010) and against that paper's closed forms for the a x 2a twisted torus:
// diameter a (3a/2 untwisted) and 4a links across the bisection (2a untwisted).
#include <catch2/catch.hpp>
#include <deque>
#include <map>
#include <random>
#include <set>

#include "topologies/chip_graph.hpp"
#include "topologies/presets.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;
using namespace tpusim::topo;

namespace {

// The neighbours of chip `coord` on a 2D or 3D torus whose dimension `twisted`'s wraparound shifts by
// `shift` along dimension `along` (twisted < 0: none), written from the definition without the library.
std::vector<std::vector<int>> plain_neighbours(std::vector<int> coord, const std::vector<int>& dims,
                                               int twisted, int along, int shift) {
  std::vector<std::vector<int>> out;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 2) continue;
    for (int step : {+1, -1}) {
      auto next = coord;
      next[d] = (coord[d] + step + dims[d]) % dims[d];
      const bool wrapped = (step == +1 && coord[d] == dims[d] - 1) || (step == -1 && coord[d] == 0);
      if (static_cast<int>(d) == twisted && wrapped)
        next[along] = ((next[along] + step * shift) % dims[along] + dims[along]) % dims[along];
      out.push_back(next);
    }
  }
  return out;
}

// Breadth-first distances in the test's own adjacency, from chip 0 (twisted tori look alike from every chip).
int plain_diameter(const std::vector<int>& dims, int twisted, int along, int shift) {
  std::map<std::vector<int>, int> distance;
  std::deque<std::vector<int>> queue{std::vector<int>(dims.size(), 0)};
  distance[queue.front()] = 0;
  int far = 0;
  while (!queue.empty()) {
    const auto at = queue.front();
    queue.pop_front();
    for (const auto& next : plain_neighbours(at, dims, twisted, along, shift)) {
      if (distance.count(next) > 0) continue;
      distance[next] = distance[at] + 1;
      far = std::max(far, distance[next]);
      queue.push_back(next);
    }
  }
  return far;
}

std::string error_of(const std::string& spec) {
  try {
    topology_from_spec(spec);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a twisted wraparound lands shift chips along, and the - way undoes it") {
  const auto topology = topology_from_spec("torus:4x8,twist_x=y+4");
  // Hand-checked: (3,1) + x wraps to (0,1+4); (0,5) - x comes back; (1,1) + x is an ordinary hop.
  CHECK(neighbour_chip(topology, chip_id(topology, {3, 1}), 0) == chip_id(topology, {0, 5}));
  CHECK(neighbour_chip(topology, chip_id(topology, {0, 5}), 1) == chip_id(topology, {3, 1}));
  CHECK(neighbour_chip(topology, chip_id(topology, {0, 6}), 1) == chip_id(topology, {3, 2}));
  CHECK(neighbour_chip(topology, chip_id(topology, {1, 1}), 0) == chip_id(topology, {2, 1}));
  CHECK(neighbour_chip(topology, chip_id(topology, {3, 7}), 2) == chip_id(topology, {3, 0}));  // y untwisted

  std::mt19937 random(5);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<int> dims;
    const int rank = 2 + static_cast<int>(random() % 2);
    for (int d = 0; d < rank; ++d) dims.push_back(2 + static_cast<int>(random() % 5));
    const int twisted = static_cast<int>(random() % rank);
    const int along = (twisted + 1 + static_cast<int>(random() % (rank - 1))) % rank;
    std::vector<int> shifts;
    for (int s = 1; s < dims[along]; ++s)
      if (dims[along] % s == 0) shifts.push_back(s);
    if (shifts.empty()) continue;
    const int shift = shifts[random() % shifts.size()];
    const char* axis = "xyz";
    std::string spec = "torus:" + std::to_string(dims[0]);
    for (int d = 1; d < rank; ++d) spec += "x" + std::to_string(dims[d]);
    spec += ",twist_" + std::string(1, axis[twisted]) + "=" + axis[along] + "+" + std::to_string(shift);
    INFO(spec);
    const auto topology = topology_from_spec(spec);
    for (int chip = 0; chip < topology.num_chips(); ++chip) {
      const auto expected = plain_neighbours(chip_coord(topology, chip), dims, twisted, along, shift);
      for (int hop = 0; hop < 2 * rank; ++hop) {
        const int next = neighbour_chip(topology, chip, hop);
        REQUIRE(chip_coord(topology, next) == expected[hop]);
        REQUIRE(neighbour_chip(topology, next, hop ^ 1) == chip);
      }
    }
    CHECK(graph_figures(topology).diameter_hops == plain_diameter(dims, twisted, along, shift));
  }
}

TEST_CASE("a twisted a x 2a torus has diameter a and twice the bisection (Camara et al.)") {
  for (const int a : {2, 4, 6, 8}) {
    const std::string size = std::to_string(a) + "x" + std::to_string(2 * a);
    INFO(size);
    const auto regular = graph_figures(topology_from_spec("torus:" + size));
    const auto twisted =
        graph_figures(topology_from_spec("torus:" + size + ",twist_x=y+" + std::to_string(a)));
    CHECK(regular.diameter_hops == a / 2 + a);
    CHECK(twisted.diameter_hops == a);
    CHECK(regular.bisection_links == 2 * a);
    CHECK(twisted.bisection_links == 4 * a);
    CHECK(twisted.links == regular.links);
    CHECK(twisted.average_hops < regular.average_hops);
  }
  // TPU v4's twisted 4x4x8 slice: shorter diameter, twice the bisection of the regular slice.
  const auto regular = graph_figures(preset("tpu-v4-4x4x8"));
  const auto twisted = graph_figures(preset("tpu-v4-4x4x8-twisted"));
  CHECK(regular.diameter_hops == 8);
  CHECK(twisted.diameter_hops == 6);
  CHECK(twisted.bisection_links == 2 * regular.bisection_links);
}

TEST_CASE("the TPU v4 presets follow their sources") {
  const auto cube = preset("tpu-v4-cube");
  CHECK(cube.chip_dims() == std::vector<int>{4, 4, 4});
  CHECK(cube.cores_per_chip() == 2);
  CHECK(cube.inter_chip().bandwidth_Bps() == 50e9);
  const auto pod = preset("tpu-v4-pod");
  CHECK(pod.num_chips() == 4096);
  // The Cloud TPU page's 24 TB/s pod bisection against the preset's: 512 links x 50 GB/s one way.
  CHECK(graph_figures(pod).bisection_Bps / 2 == Approx(24e12).epsilon(0.07));
  CHECK(preset("tpu-v4-4x4x8-twisted").twists().size() == 2);
  CHECK_FALSE(preset("tpu-v4-4x4x8").twisted());
}

TEST_CASE("routes on a twisted torus are shortest paths over real links") {
  const auto topology = topology_from_spec("torus:4x4x8,cores=2,twist_x=z+4,twist_y=z+4");
  REQUIRE(topology.route_table() != nullptr);
  for (int from = 0; from < topology.num_chips(); ++from) {
    // Distances from `from` by the test's own breadth-first search over plain neighbours (twists on x and y).
    std::map<int, int> distance{{from, 0}};
    std::deque<int> queue{from};
    while (!queue.empty()) {
      const int at = queue.front();
      queue.pop_front();
      auto coord = chip_coord(topology, at);
      std::set<std::vector<int>> next;
      for (int twisted : {0, 1}) {
        for (const auto& n : plain_neighbours(coord, topology.chip_dims(), twisted, 2, 4)) {
          // A hop along the other twisted dimension follows its own twist: take it from that dimension's
          // list.
          const int d = [&] {
            for (int k = 0; k < 3; ++k)
              if (n[k] != coord[k]) return k;
            return 0;
          }();
          if (d == twisted || d == 2) next.insert(n);
        }
      }
      for (const auto& n : next) {
        const int id = chip_id(topology, n);
        if (distance.count(id) == 0) distance[id] = distance[at] + 1, queue.push_back(id);
      }
    }
    for (int to = 0; to < topology.num_chips(); ++to) {
      if (to == from) continue;
      int hops = 0;
      for (int at = from; at != to; ++hops) {
        const int hop = topology.route_table()->first_hop(at, to);
        at = neighbour_chip(topology, at, hop);
        REQUIRE(hops < 64);
      }
      REQUIRE(hops == distance.at(to));
    }
  }
}

TEST_CASE("a twist that does not fit is one clear error") {
  CHECK(
      error_of("torus:4x8,twist_x=y+3") ==
      "topology 'torus:4x8,twist_x=y+3': twist_x=y+3: the shift 3 must divide the size 8 it shifts along and "
      "be less than it");
  CHECK(
      error_of("torus:4x8,twist_x=y+8") ==
      "topology 'torus:4x8,twist_x=y+8': twist_x=y+8: the shift 8 must divide the size 8 it shifts along and "
      "be less than it");
  CHECK(error_of("torus:4x8,twist_x=x+2") ==
        "topology 'torus:4x8,twist_x=x+2': twist_x=x+2: a dimension cannot be twisted along itself");
  CHECK(error_of("mesh:4x8,twist_x=y+4") ==
        "topology 'mesh:4x8,twist_x=y+4': twist_x=y+4: only a torus has wraparound links to twist");
  CHECK(
      error_of("torus:4x8,twist_x=y+4,twist_y=x+2") ==
      "topology 'torus:4x8,twist_x=y+4,twist_y=x+2': twist_x=y+4: it shifts along a dimension that is itself "
      "twisted");
  CHECK(error_of("torus:4x8,twist_z=x+2") ==
        "topology 'torus:4x8,twist_z=x+2': twist_z: the pod has 2 dimensions");
  CHECK(error_of("torus:4x8,twist_x=q+2") ==
        "topology 'torus:4x8,twist_x=q+2': twist_x: 'q+2' is not <axis>+<shift> with an axis of the pod (x, "
        "y), "
        "such as z+4");
  CHECK(error_of("torus:4x8,twist_x=y+0").rfind("topology 'torus:4x8,twist_x=y+0': twist_x: shift: ", 0) ==
        0);
  CHECK(error_of("torus:4x8,twist_x=y+4,twist_x=y+2") ==
        "topology 'torus:4x8,twist_x=y+4,twist_x=y+2': key 'twist_x' is given twice");
  CHECK(error_of("torus:4x8,twist_x=y+4").empty());
}
