#pragma once
// The one table of collective algorithms: {kind, name, description, fits, build}. Adding an algorithm is one
// file in sim/algorithms/ and one row here. No SimGrid in this header.
#include <string>
#include <vector>

#include "sim/collective.hpp"
#include "sim/schedule.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

struct AlgorithmInfo {
  CollectiveKind kind;
  std::string name;
  std::string description;
  bool per_dimension;  // may be named once per group dimension
};

std::vector<AlgorithmInfo> algorithm_table();
std::vector<std::string> algorithm_names(CollectiveKind kind);
std::string default_algorithm(CollectiveKind kind);

// Checks the algorithm names against the kind and every group (InputError naming the problem and the valid
// choices), then builds the schedule of all groups at once.
Schedule build_schedule(const topo::Topology& topology, const CollectiveRequest& request);
void check_algorithms(const topo::Topology& topology, const CollectiveRequest& request);

}  // namespace tpusim::sim
