#include "mesh_tf/pod_allreduce.hpp"

#include "sim/algorithm_registry.hpp"

namespace tpusim::mtf {

bool pod_allreduce_takes(const std::string& algorithm, const topo::Topology* topology,
                         sim::CollectiveKind kind, const std::vector<topo::Group>& groups) {
  return !algorithm.empty() && topology != nullptr && kind == sim::CollectiveKind::allreduce &&
         groups.size() == 1 && groups.front().size() == topology->num_cores();
}

std::vector<topo::Group> pod_groups(const topo::Topology& topology, const sim::AlgorithmRow& algorithm) {
  std::string axes = "all";
  if (algorithm.shape == sim::GroupShape::two_dimensional) axes = topo::default_group_axes(topology, 2);
  if (algorithm.shape == sim::GroupShape::per_axis) axes = topo::per_axis_group_axes(topology);
  return topo::groups_along(topology, topo::parse_group_axes(topology, axes));
}

}  // namespace tpusim::mtf
