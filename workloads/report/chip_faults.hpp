#pragma once
// What a pod's faults (topologies/faults.hpp) do to each chip, as a trace names it: a chip computes slowly
// (a straggler) or ends a link that is down or slow. The trace gives such chips tracks of their own, so that
// the chip a fault touches can be found in it.
#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace tpusim::workloads {

// What kind() and detail() say of a chip no fault touches.
inline constexpr const char* kHealthyChip = "healthy";

struct ChipFaults {
  double straggler_factor = 1;  // how many times slower it computes; 1 for a healthy chip
  std::vector<int> down_links;  // links (faults.hpp's numbering) with an end at the chip, down
  std::vector<int> slow_links;  // the same, slow

  bool healthy() const { return straggler_factor == 1 && down_links.empty() && slow_links.empty(); }
  // What kind of faults touch it, the same for chips the trace shows as one class: "straggler 1.5x slower
  // and at a down link"; "healthy" without faults.
  std::string kind() const;
  // Each fault: "straggler 1.5x slower, link 3.4+x down, link 2.4+x at 0.5 bandwidth"; "healthy" without.
  std::string detail(const topo::Topology& topology) const;
};

// One per chip, in chip order.
std::vector<ChipFaults> faults_by_chip(const topo::Topology& topology);

}  // namespace tpusim::workloads
