#pragma once
// Checks of a CollectiveRequest against a topology, shared by the simulator and the analytical predictions.
#include <vector>

#include "sim/collective.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

// InputError naming what is wrong: groups that are not sets of existing cores or overlap, a bad permutation,
// data buffers missing or of the wrong size, unknown or unfitting algorithms.
void validate_request(const topo::Topology& topology, const CollectiveRequest& request);

// The ranks that send or receive something (members of groups of two or more, permute pairs that move data).
std::vector<topo::Rank> participants(const CollectiveRequest& request);

// nccl-tests bus bandwidth factor: 2(p-1)/p for allreduce, (p-1)/p for reduce-scatter, allgather and
// all-to-all, 1 for broadcast and permute.
double busbw_factor(CollectiveKind kind, int group_size);
// All-to-all and permute transfers read the buffers as they were when the collective began, so running them
// with data keeps a copy of every input.
bool reads_buffers_at_start(CollectiveKind kind);
int largest_group(const CollectiveRequest& request);

}  // namespace tpusim::sim
