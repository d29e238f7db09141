#pragma once
// The parts an algorithm file provides to its row of the registry (sim/algorithm_registry.hpp), with their
// signatures: a fit check, a schedule builder, a closed form, and for algorithms that run along one group
// dimension their line operations. No SimGrid here.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/collective.hpp"
#include "sim/schedule.hpp"
#include "topologies/group.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim::algorithms {

// The members of one group dimension, or of a whole group flattened in group order, in ring order: position
// i's ring neighbours are i-1 and i+1 (mod p).
using Line = std::vector<Rank>;

// What a fit check and a builder see besides the group: the topology (link figures) and the whole request
// (its kind, element count and element size).
struct AlgorithmInput {
  const topo::Topology& topology;
  const CollectiveRequest& request;
};

// Why the algorithm cannot run on this group ("" when it can).
using FitCheck = std::string (*)(const topo::Group& group, const AlgorithmInput& input);
// The schedule of one group. Permute is one schedule of request.permutation: its builder gets an empty group.
using Builder = Schedule (*)(const topo::Group& group, const AlgorithmInput& input);

// A closed form (sim/README.md, Closed forms) is asked for when every transfer is one hop over identical
// links (latency alpha, bandwidth B), for S bytes per member on a group of the given dimensions.
struct ClosedFormInput {
  CollectiveKind kind = CollectiveKind::allreduce;
  std::vector<int> dims;  // the group's dimensions; one for a line; empty for permute
  double bytes = 0;       // S
  double alpha = 0;
  double bandwidth = 0;
  // Group dimension 0 runs over the cores of one chip (topo::first_dimension_on_chip).
  bool first_on_chip = false;
  // On a multislice pod, the slices the group spans (0 or 1 when it lies in one) and the DCN route's latency
  // and bandwidth: only closed forms that model the DCN (hierarchical.cpp) answer for groups across slices.
  int slices = 0;
  double dcn_alpha = 0;
  double dcn_bandwidth = 0;
  int members() const {
    int p = 1;
    for (const int d : dims) p *= d;
    return p;
  }
};

struct ClosedForm {
  double time_s = -1;   // negative when there is none for this group
  std::string formula;  // as printed, e.g. "2(p-1)a + 2(p-1)/p S/B"; empty when there is none
  // The formula takes every split of the data as even: it is exact when the element count is a multiple of
  // this; 0 means of 2p (every ring chunk halves evenly).
  std::uint64_t exact_multiple = 0;
};

using ClosedFormFunction = ClosedForm (*)(const ClosedFormInput& input);

// Rounds of a binomial tree or a latency lower bound: ceil(log2 p), 0 for p <= 1.
inline double log2_ceil(int p) { return p <= 1 ? 0.0 : std::ceil(std::log2(static_cast<double>(p)) - 1e-12); }

// The operations of an algorithm that runs along one group dimension, from which a collective over a group of
// several dimensions is composed (sim/algorithms/composition.hpp). `owned[i]` is the element range position i
// holds reduced after a reduce-scatter (and contributes to an allgather); the ranges need not be equal or
// adjacent.
struct LineOperations {
  // Reduce-scatter of `range`, the algorithm choosing which part each position keeps (returned in owned).
  Schedule (*reduce_scatter)(const Line& line, ElementRange range, std::vector<ElementRange>& owned);
  // The inverse: allgather of what reduce_scatter left in owned.
  Schedule (*allgather)(const Line& line, const std::vector<ElementRange>& owned);
  Schedule (*allreduce)(const Line& line, ElementRange range);
  // Reduce-scatter to / allgather from a given assignment (what reduce-scatter and allgather requests need).
  Schedule (*reduce_scatter_to)(const Line& line, const std::vector<ElementRange>& owned);
  Schedule (*allgather_from)(const Line& line, const std::vector<ElementRange>& owned);
  // reduce_scatter (the algorithm choosing) needs a power-of-two line: then a composed allreduce can use
  // this algorithm on other sizes only along its last dimension.
  bool splits_only_powers_of_two;
};

}  // namespace tpusim::sim::algorithms
