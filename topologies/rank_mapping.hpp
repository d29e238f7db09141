#pragma once
// The one numbering of cores. A core is (core index on its chip, chip coordinates x, y, z). Its rank is
//   rank = core + cores_per_chip * chip_id,  chip_id = x + kx * (y + ky * z)
// i.e. the core index varies fastest, then x, then y, then z. chip_id is SimGrid's host id in the torus zone
// (dimension 0 fastest), so rank / cores_per_chip is the host a core lives on. On a multislice pod
// (multislice.hpp) the slice comes last and slowest: chip_id = x + kx * (y + ky * (z + kz * slice)), and chip
// coordinates carry the slice as one more entry after the chip dimensions.
#include <vector>

#include "topologies/topology.hpp"

namespace tpusim::topo {

struct CoreCoord {
  int core = 0;
  std::vector<int> chip;  // one coordinate per chip dimension, then the slice on a multislice pod
  bool operator==(const CoreCoord& other) const { return core == other.core && chip == other.chip; }
};

// rank_of and coord_of are inverse; both check their argument lies in the topology (TPUSIM_CHECK).
Rank rank_of(const Topology& topology, const CoreCoord& coord);
CoreCoord coord_of(const Topology& topology, Rank rank);

inline int chip_of(const Topology& topology, Rank rank) { return rank / topology.cores_per_chip(); }
std::vector<int> chip_coord(const Topology& topology, int chip_id);
int chip_id(const Topology& topology, const std::vector<int>& chip_coord);
// "3.4": a chip's coordinates joined by '.', as faults and messages write it.
std::string chip_name(const Topology& topology, int chip_id);

}  // namespace tpusim::topo
