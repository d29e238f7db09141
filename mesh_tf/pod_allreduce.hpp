#pragma once
// A sum over every core of the pod run as one collective on the torus's own axes (ExecutionOptions::
// pod_allreduce), as Ying et al. (2018, arXiv 1811.06992) sum ResNet's gradients over a TPU v3 pod with
// their 2-D torus all-reduce, rather than axis by axis over the mesh's groups.
#include <string>
#include <vector>

#include "sim/collective.hpp"
#include "topologies/group.hpp"

namespace tpusim::mtf {

// Whether pod allreduce `algorithm` ("": none) takes a collective of `kind` over `groups`: an allreduce
// whose one group holds every core of `topology` (none without a topology: nothing is simulated).
bool pod_allreduce_takes(const std::string& algorithm, const topo::Topology* topology,
                         sim::CollectiveKind kind, const std::vector<topo::Group>& groups);

// The whole pod as one group along the default group axes of allreduce `algorithm` (bucket2d: core+x,y).
std::vector<topo::Group> pod_groups(const topo::Topology& topology, const sim::AlgorithmRow& algorithm);

}  // namespace tpusim::mtf
