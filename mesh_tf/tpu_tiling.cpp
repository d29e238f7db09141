#include "mesh_tf/tpu_tiling.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::mtf {
namespace {

struct Place {
  int row = 0;     // along p0 (y)
  int column = 0;  // along p1 (x)
  int core = 0;
};

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

int floor_log2(int n) {
  int log = 0;
  while ((n >>= 1) > 0) ++log;
  return log;
}

std::string grid(int rows, int columns) { return fmt::format("{}x{}", columns, rows); }  // x by y

// The places of the processors of `sizes` (mesh dimension sizes, first slowest) in a rows x columns tile of
// chips with `cores` cores each, and one note part per dimension; false where the tile sizes do not divide.
bool place(const std::vector<int>& sizes, const std::vector<std::string>& names, int rows, int columns,
           int cores, std::vector<Place>& out, std::vector<std::string>& notes) {
  const int total = rows * columns * cores;
  if (sizes.size() == 1) {
    TPUSIM_CHECK(sizes[0] == total);
    const auto ring = ring_2d(rows, columns);
    out.resize(total);
    for (int p = 0; p < total; ++p) out[p] = {ring[p / cores].first, ring[p / cores].second, p % cores};
    notes.push_back(
        fmt::format("{} = {}{} chips in a tile", names[0], cores > 1 ? "core+" : "", grid(rows, columns)));
    return true;
  }
  const int tiles = sizes[0];
  if (total % tiles != 0 || (total / tiles) % cores != 0) return false;
  const int per_tile = total / tiles;
  const int tile_chips = per_tile / cores;
  int tile_rows = 0, tile_columns = 0;
  // Mesh-TensorFlow's choice: a whole column or row of chips for the last of two dimensions where it fits
  // one exactly, else a tile as square as powers of two allow.
  if (sizes.size() == 2 && tile_chips == rows) {
    tile_rows = tile_chips, tile_columns = 1;
  } else if (sizes.size() == 2 && tile_chips == columns) {
    tile_rows = 1, tile_columns = tile_chips;
  } else {
    tile_rows = 1 << (floor_log2(tile_chips) / 2);
    tile_rows = std::min(tile_rows, rows);
    tile_rows = std::max(tile_rows, tile_chips / columns);
    tile_columns = tile_chips / tile_rows;
  }
  if (tile_rows * tile_columns != tile_chips || rows % tile_rows != 0 || columns % tile_columns != 0)
    return false;
  std::vector<Place> inner;
  notes.push_back(
      fmt::format("{} = ring of {} tiles", names[0], grid(rows / tile_rows, columns / tile_columns)));
  if (!place(std::vector<int>(sizes.begin() + 1, sizes.end()),
             std::vector<std::string>(names.begin() + 1, names.end()), tile_rows, tile_columns, cores, inner,
             notes)) {
    return false;
  }
  const auto tile_ring = ring_2d(rows / tile_rows, columns / tile_columns);
  out.resize(total);
  for (int p = 0; p < total; ++p) {
    const auto& tile = tile_ring[p / per_tile];
    const Place& in = inner[p % per_tile];
    out[p] = {tile.first * tile_rows + in.row, tile.second * tile_columns + in.column, in.core};
  }
  return true;
}

}  // namespace

std::vector<std::pair<int, int>> ring_2d(int m, int n) {
  TPUSIM_CHECK(m >= 1 && n >= 1);
  std::vector<std::pair<int, int>> ring;
  if (m == 1 || n == 1) {
    for (int i = 0; i < m * n; ++i) ring.emplace_back(m == 1 ? 0 : i, m == 1 ? i : 0);
    return ring;
  }
  if (m % 2 != 0) {
    for (int i = 0; i < m * n; ++i) ring.emplace_back(i % m, i / m);
    return ring;
  }
  ring.emplace_back(0, 0);
  for (int i = 0; i < m / 2; ++i) {
    for (int j = 1; j < n; ++j) ring.emplace_back(2 * i, j);
    for (int j = n - 1; j > 0; --j) ring.emplace_back(2 * i + 1, j);
  }
  for (int i = m - 1; i > 0; --i) ring.emplace_back(i, 0);
  return ring;
}

std::optional<TpuTiling> tpu_tiling(const MeshShape& mesh, const topo::Topology& topology) {
  const auto& chips = topology.chip_dims();
  // Mesh-TensorFlow tiled one pod; across the slices of a multislice pod there is no ICI to tile.
  if (topology.multislice() || chips.size() != 2 || !power_of_two(chips[0]) || !power_of_two(chips[1]))
    return std::nullopt;
  const int rows = chips[1], columns = chips[0], cores = topology.cores_per_chip();
  // Dimensions of size 1 change no processor's place (simd_mesh_impl.py drops them too).
  std::vector<int> sizes;
  std::vector<std::string> names;
  for (int m = 0; m < mesh.rank(); ++m) {
    if (mesh.dim_size(m) == 1) continue;
    sizes.push_back(mesh.dim_size(m));
    names.push_back(mesh.dim_name(m));
  }
  if (sizes.empty() || mesh.size() != topology.num_cores()) return std::nullopt;
  std::vector<Place> places;
  std::vector<std::string> notes;
  if (!place(sizes, names, rows, columns, cores, places, notes)) return std::nullopt;
  TpuTiling tiling;
  tiling.note = "tiled as Mesh-TensorFlow does: " + join(notes, ", ");
  for (const Place& at : places) {
    tiling.ranks.push_back(topo::rank_of(topology, topo::CoreCoord{at.core, {at.column, at.row}}));
  }
  return tiling;
}

}  // namespace tpusim::mtf
