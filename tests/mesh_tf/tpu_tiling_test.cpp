// Mesh-TensorFlow's tiling of a pod (tensorflow/mesh, simd_mesh_impl.py auto_logical_to_physical_tpu) for
// meshes that do not factor onto whole axes: checked against the ring drawn in _ring_2d's docstring, by hand
// placements, and by the property the tiling exists for: every mesh dimension's groups are physical rings.
#include "mesh_tf/tpu_tiling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "mesh_tf/mesh_mapping.hpp"
#include "topologies/presets.hpp"
#include "topologies/rank_mapping.hpp"

using namespace tpusim;
using namespace tpusim::mtf;

namespace {

// Hops between two chips of a 2D torus (or mesh) along each axis.
int torus_distance(int a, int b, int size, bool wraparound) {
  const int d = std::abs(a - b);
  return wraparound ? std::min(d, size - d) : d;
}

int chip_hops(const topo::Topology& topology, topo::Rank a, topo::Rank b) {
  const auto ca = topo::coord_of(topology, a), cb = topo::coord_of(topology, b);
  int hops = 0;
  for (std::size_t d = 0; d < ca.chip.size(); ++d) {
    hops += torus_distance(ca.chip[d], cb.chip[d], topology.chip_dims()[d], topology.wraparound());
  }
  return hops;
}

}  // namespace

TEST_CASE("tpu tiling: ring_2d is the ring drawn in simd_mesh_impl.py") {
  // From the docstring of _ring_2d(4, 4): the number at (row, column) is its place in the ring.
  const int drawn[4][4] = {{0, 1, 2, 3}, {15, 6, 5, 4}, {14, 7, 8, 9}, {13, 12, 11, 10}};
  const auto ring = ring_2d(4, 4);
  REQUIRE(ring.size() == 16);
  for (int k = 0; k < 16; ++k) CHECK(drawn[ring[k].first][ring[k].second] == k);
  // Even m: a cycle through neighbours, closing back to (0, 0), on every even grid.
  for (const int m : {2, 4, 8}) {
    for (const int n : {2, 3, 8, 16}) {
      const auto r = ring_2d(m, n);
      REQUIRE(r.size() == static_cast<std::size_t>(m * n));
      CHECK(std::set<std::pair<int, int>>(r.begin(), r.end()).size() == r.size());
      for (std::size_t k = 0; k < r.size(); ++k) {
        const auto& a = r[k];
        const auto& b = r[(k + 1) % r.size()];
        CHECK(std::abs(a.first - b.first) + std::abs(a.second - b.second) == 1);
      }
    }
  }
  CHECK(ring_2d(1, 3) == std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {0, 2}});
  CHECK(ring_2d(3, 1) == std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {2, 0}});
  // Odd m: column-major, as the Python does.
  CHECK(ring_2d(3, 2) == std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}});
}

TEST_CASE("tpu tiling: batch 4 x model 16 on an 8x8 torus is four 4x4 tiles, each the drawn ring") {
  const auto topology = topo::topology_from_spec("torus:8x8");
  const MeshShape mesh = MeshShape::parse("batch:4;model:16");
  const MeshMapping mapping(mesh, topology);
  CHECK_FALSE(mapping.factored());
  CHECK(mapping.note() ==
        "tiled as Mesh-TensorFlow does: batch = ring of 2x2 tiles, model = 4x4 chips in a tile");
  // By hand: 16 chips per tile, square 4x4; the tiles visited (0,0), (0,1), (1,1), (1,0) (row, column);
  // inside a tile model position k sits where the drawn ring has k. Row is y, column is x.
  const int drawn[4][4] = {{0, 1, 2, 3}, {15, 6, 5, 4}, {14, 7, 8, 9}, {13, 12, 11, 10}};
  const int tile_row[4] = {0, 0, 1, 1}, tile_column[4] = {0, 1, 1, 0};
  for (int b = 0; b < 4; ++b) {
    for (int row = 0; row < 4; ++row) {
      for (int column = 0; column < 4; ++column) {
        const int model = drawn[row][column];
        const int x = tile_column[b] * 4 + column, y = tile_row[b] * 4 + row;
        INFO("batch " << b << " model " << model);
        CHECK(mapping.rank_of(mesh.processor_index({b, model})) == x + 8 * y);
      }
    }
  }
}

TEST_CASE("tpu tiling: the paper's pod meshes that do not factor become rings of neighbours") {
  const auto topology = topo::preset("tpu-v2-pod");
  struct Case {
    std::string mesh;
    std::string note;
    int batch_hops;  // chip hops between neighbours of a batch group (a tile side)
  };
  const std::vector<Case> cases = {
      {"batch:64;model:8", "batch = ring of 8x8 tiles, model = core+2x2 chips in a tile", 2},
      {"batch:8;model:64", "batch = ring of 2x4 tiles, model = core+8x4 chips in a tile", -1},
      {"batch:4;model:128", "batch = ring of 2x2 tiles, model = core+8x8 chips in a tile", 8},
  };
  for (const auto& c : cases) {
    INFO(c.mesh);
    const MeshMapping mapping(MeshShape::parse(c.mesh), topology);
    CHECK(mapping.note() == "tiled as Mesh-TensorFlow does: " + c.note);
    std::vector<int> seen(512, 0);
    for (int p = 0; p < 512; ++p) {
      ++seen[mapping.rank_of(p)];
      CHECK(mapping.processor_of(mapping.rank_of(p)) == p);
    }
    CHECK(std::count(seen.begin(), seen.end(), 1) == 512);
    // model: a cycle in which each step stays on a chip or moves to a neighbouring chip.
    for (const auto& group : mapping.groups({1})) {
      for (int i = 0; i < group.size(); ++i) {
        CHECK(chip_hops(topology, group.ranks[i], group.ranks[(i + 1) % group.size()]) <= 1);
      }
    }
    // batch: the same core of the same place in neighbouring tiles, one tile side apart along one axis.
    for (const auto& group : mapping.groups({0})) {
      for (int i = 0; i < group.size(); ++i) {
        const auto a = topo::coord_of(topology, group.ranks[i]);
        const auto b = topo::coord_of(topology, group.ranks[(i + 1) % group.size()]);
        CHECK(a.core == b.core);
        CHECK((a.chip[0] == b.chip[0] || a.chip[1] == b.chip[1]));
        const int hops = chip_hops(topology, group.ranks[i], group.ranks[(i + 1) % group.size()]);
        if (c.batch_hops > 0) CHECK(hops == c.batch_hops);
      }
    }
  }
}

TEST_CASE("tpu tiling: random meshes of three dimensions are permutations with rings inside the tiles") {
  const auto topology = topo::preset("tpu-v2-pod");
  std::mt19937 random(7);
  int tiled = 0;
  for (int trial = 0; trial < 40; ++trial) {
    // Three powers of two multiplying to 512.
    const int log_a = std::uniform_int_distribution<int>(1, 4)(random);
    const int log_b = std::uniform_int_distribution<int>(1, 8 - log_a)(random);
    const int a = 1 << log_a, b = 1 << log_b, c = 512 / a / b;
    const MeshShape mesh = MeshShape::parse(fmt::format("a:{};b:{};c:{}", a, b, c));
    const auto tiling = tpu_tiling(mesh, topology);
    if (!tiling) continue;
    ++tiled;
    INFO(mesh.to_string() << ": " << tiling->note);
    std::vector<int> sorted = tiling->ranks;
    std::sort(sorted.begin(), sorted.end());
    for (int r = 0; r < 512; ++r) CHECK(sorted[r] == r);
    // The innermost dimension walks cores on one chip or neighbouring chips. (It closes into a ring when its
    // tile is two chips wide or more; a tile one chip wide is a line, as in Mesh-TensorFlow.)
    for (int p = 0; p < 512; p += c) {
      for (int k = 0; k + 1 < c; ++k)
        CHECK(chip_hops(topology, tiling->ranks[p + k], tiling->ranks[p + k + 1]) <= 1);
    }
  }
  CHECK(tiled > 10);
}

TEST_CASE("tpu tiling: not for pods it does not fit") {
  // Sides that are not powers of two, a 3D torus, a ring: Mesh-TensorFlow's placement does not apply.
  CHECK_FALSE(tpu_tiling(MeshShape::parse("a:4;b:18"), topo::topology_from_spec("torus:6x6,cores=2")));
  CHECK_FALSE(tpu_tiling(MeshShape::parse("a:4;b:16"), topo::topology_from_spec("torus:4x4x4")));
  CHECK_FALSE(tpu_tiling(MeshShape::parse("a:2;b:4"), topo::topology_from_spec("ring:8")));
  const MeshMapping linear(MeshShape::parse("a:4;b:18"), topo::topology_from_spec("torus:6x6,cores=2"));
  CHECK(linear.note().find("linear assignment") == 0);
  CHECK(linear.rank_of(37) == 37);
}
