#pragma once
// A pod: chips on a 1D/2D/3D grid (torus with wraparound, or mesh without), each chip with one or more cores.
// Links join neighbouring chips (inter_chip); the cores of one chip talk over intra_chip.
#include <memory>
#include <string>
#include <vector>

#include "topologies/faults.hpp"
#include "topologies/link_params.hpp"
#include "topologies/route_table.hpp"
#include "topologies/twist.hpp"

namespace tpusim::topo {

using Rank = int;  // a core's global number, see rank_mapping.hpp

// Every chip is a SimGrid host with its links and routes; beyond kMaxChips the platform alone exhausts
// memory. Ranks are ints: the largest pod, kMaxChips * kMaxCoresPerChip cores, keeps far from overflow.
constexpr int kMaxChips = 65536;
constexpr int kMaxCoresPerChip = 64;
constexpr int kMaxCores = kMaxChips * kMaxCoresPerChip;

// A physical axis of the pod as seen by groups and meshes: "core" (the cores of one chip), then "x", "y",
// "z", and on a multislice pod "slice" (multislice.hpp).
struct PhysicalAxis {
  std::string name;
  int size;
  int stride;  // rank distance between neighbours along this axis
};

class Topology {
 public:
  // Throws InputError unless 1 <= chip_dims.size() <= 3, every size >= 1 and cores_per_chip >= 1.
  Topology(std::string name, std::vector<int> chip_dims, bool wraparound, int cores_per_chip,
           LinkParams inter_chip, LinkParams intra_chip);

  const std::string& name() const { return name_; }
  const std::vector<int>& chip_dims() const { return chip_dims_; }
  bool wraparound() const { return wraparound_; }
  int cores_per_chip() const { return cores_per_chip_; }
  int num_chips() const { return num_chips_; }
  int num_cores() const { return num_chips_ * cores_per_chip_; }
  const LinkParams& inter_chip() const { return inter_chip_; }
  const LinkParams& intra_chip() const { return intra_chip_; }

  // Multislice pods (topologies/multislice.hpp): `slices` copies of this pod, its chips numbered slice by
  // slice, each chip with a data-centre network NIC (`dcn`: its bandwidth each way, and the latency from NIC
  // to NIC across the fabric). InputError for fewer than 2 slices, too many chips, or a twisted or faulty
  // slice (routes there follow the regular torus).
  Topology as_multislice(std::string name, int slices, LinkParams dcn) const;
  int slices() const { return slices_; }
  bool multislice() const { return slices_ > 1; }
  int chips_per_slice() const { return num_chips_ / slices_; }
  int slice_of_chip(int chip) const { return chip / chips_per_slice(); }
  const LinkParams& dcn() const;  // only on a multislice pod (TPUSIM_CHECK)
  Topology one_slice() const;     // the slice alone; the pod itself when it is one slice

  // "core" first (always present, size 1 on single-core chips), then one per chip dimension, then "slice" on
  // a multislice pod.
  std::vector<PhysicalAxis> axes() const;
  int axis_index(const std::string& name) const;  // throws InputError listing the valid names

  std::string kind() const;   // "ring", "torus", "mesh" (1D without wraparound is a "line")
  std::string shape() const;  // "16x16 chips x 2 cores"

  Topology with_links(LinkParams inter_chip, LinkParams intra_chip) const;

  // Whether `chip` has a link to its + neighbour along chip dimension d: not along a dimension of one chip,
  // nor from the last chip of a row without wraparound.
  bool has_link(int chip, int dimension) const;

  // Its links and chips as faults.hpp's text says (InputError naming the item otherwise); "" is healthy.
  Topology with_faults(const std::string& text) const;
  const Faults& faults() const { return faults_; }

  // The same pod with these wraparounds twisted (twist.hpp; InputError when one does not fit); its faults
  // are read again against the twisted links.
  Topology with_twists(std::vector<Twist> twists) const;
  const std::vector<Twist>& twists() const { return twists_; }
  bool twisted() const { return !twists_.empty(); }

  // Where routes do not follow the regular torus's dimension order (links down or twisted wraparounds):
  // the shortest routes over the links there are; nullptr otherwise.
  const RouteTable* route_table() const { return route_table_.get(); }

 private:
  std::string name_;
  std::vector<int> chip_dims_;
  bool wraparound_;
  int cores_per_chip_;
  int num_chips_;
  LinkParams inter_chip_;
  LinkParams intra_chip_;
  Faults faults_;
  std::vector<Twist> twists_;
  std::shared_ptr<const RouteTable> route_table_;
  int slices_ = 1;
  std::shared_ptr<const LinkParams> dcn_;

  void build_route_table();
};

// The chip that hop `hop` (dimension * 2, + 1 for the - way) leads to from `chip`, over twisted wraparounds
// too; -1 along a dimension of size 1. The - neighbour of a chip is the chip whose + neighbour it is.
int neighbour_chip(const Topology& topology, int chip, int hop);

}  // namespace tpusim::topo
