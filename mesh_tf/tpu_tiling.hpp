#pragma once
// Mesh-TensorFlow's placement of a logical mesh on a TPU pod whose sizes do not factor onto whole physical
// axes: auto_logical_to_physical_tpu in tensorflow/mesh, mesh_tensorflow/simd_mesh_impl.py. The pod's
// p0 x p1 chips (p0 along y, p1 along x, as its physical_shape_3d_from_topology_proto_4d orders them) are cut
// into rectangular tiles: the first mesh dimension numbers the tiles, visited in _ring_2d order (a cycle
// through the grid of tiles), and the other mesh dimensions lie inside a tile, placed the same way
// recursively; the last one runs over the cores of a chip fastest, then over the tile's chips in _ring_2d
// order. So every mesh dimension is a ring: of neighbouring chips inside a tile, or of neighbouring tiles
// (whose corresponding cores are a tile side apart).
#include <optional>
#include <string>
#include <vector>

#include "mesh_tf/mesh_shape.hpp"
#include "topologies/topology.hpp"

namespace tpusim::mtf {

struct TpuTiling {
  std::vector<topo::Rank> ranks;  // by logical processor index
  std::string note;               // "batch = ring of 8x8 tiles, model = core+2x2 chips in a tile"
};

// _ring_2d(m, n): the m x n grid positions (row, column) in ring order. With m even a Hamiltonian cycle:
// rows in pairs over columns 1..n-1, back along column 0; with m odd column-major order.
std::vector<std::pair<int, int>> ring_2d(int m, int n);

// The tiling of `mesh` on `topology`, or nothing where Mesh-TensorFlow's placement does not apply: a
// topology that is not a 2D grid of chips with power-of-two sides, or tile sizes that do not divide it.
std::optional<TpuTiling> tpu_tiling(const MeshShape& mesh, const topo::Topology& topology);

}  // namespace tpusim::mtf
