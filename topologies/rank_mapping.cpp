#include "topologies/rank_mapping.hpp"

#include "topologies/support/check.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::topo {

int chip_id(const Topology& topology, const std::vector<int>& chip_coord) {
  const auto& dims = topology.chip_dims();
  // A multislice pod's coordinates end with the slice, the slowest (multislice.hpp).
  const std::size_t slice_coords = topology.multislice() ? 1 : 0;
  TPUSIM_CHECK(chip_coord.size() == dims.size() + slice_coords);
  int id = 0;
  if (slice_coords == 1) {
    TPUSIM_CHECK(chip_coord.back() >= 0 && chip_coord.back() < topology.slices());
    id = chip_coord.back();
  }
  for (std::size_t d = dims.size(); d-- > 0;) {
    TPUSIM_CHECK(chip_coord[d] >= 0 && chip_coord[d] < dims[d]);
    id = id * dims[d] + chip_coord[d];
  }
  return id;
}

std::vector<int> chip_coord(const Topology& topology, int id) {
  TPUSIM_CHECK(id >= 0 && id < topology.num_chips());
  std::vector<int> coord;
  for (const int size : topology.chip_dims()) {
    coord.push_back(id % size);
    id /= size;
  }
  if (topology.multislice()) coord.push_back(id);
  return coord;
}

std::string chip_name(const Topology& topology, int id) {
  std::vector<std::string> parts;
  for (const int c : chip_coord(topology, id)) parts.push_back(std::to_string(c));
  return join(parts, ".");
}

Rank rank_of(const Topology& topology, const CoreCoord& coord) {
  TPUSIM_CHECK(coord.core >= 0 && coord.core < topology.cores_per_chip());
  return coord.core + topology.cores_per_chip() * chip_id(topology, coord.chip);
}

CoreCoord coord_of(const Topology& topology, Rank rank) {
  TPUSIM_CHECK(rank >= 0 && rank < topology.num_cores());
  return {rank % topology.cores_per_chip(), chip_coord(topology, rank / topology.cores_per_chip())};
}

}  // namespace tpusim::topo
