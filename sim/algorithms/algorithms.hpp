#pragma once
// What each algorithm file exports for its rows of the registry (sim/algorithm_registry.cpp): builders, fit
// checks, closed forms and line operations, with the signatures of algorithm_parts.hpp. One file per
// algorithm; its closed form lives beside its schedule, so the two are read and changed together.
#include <vector>

#include "sim/algorithms/algorithm_parts.hpp"

namespace tpusim::sim::algorithms {

// ring.cpp: one direction, p-1 steps per phase.
Schedule ring_reduce_scatter(const Line& line, const std::vector<ElementRange>& owned);
Schedule ring_allgather(const Line& line, const std::vector<ElementRange>& owned);
Schedule ring_allreduce(const Line& line, ElementRange range);
extern const LineOperations ring_line;
ClosedForm ring_closed_form(const ClosedFormInput& input);

// bidir_ring.cpp: every range split in halves, the first travelling +1 and the second -1 around the ring.
Schedule bidir_ring_reduce_scatter(const Line& line, const std::vector<ElementRange>& owned);
Schedule bidir_ring_allgather(const Line& line, const std::vector<ElementRange>& owned);
Schedule bidir_ring_allreduce(const Line& line, ElementRange range);
extern const LineOperations bidir_ring_line;
ClosedForm bidir_ring_closed_form(const ClosedFormInput& input);

// halving_doubling.cpp: recursive halving (reduce-scatter) and recursive doubling (allgather, its mirror),
// log2 p steps each, on any assignment and any p (members beyond the largest power of two folded onto a
// partner). _to halves with partner j xor p/2 first and _from doubles with j xor 1 first (MPICH's order), so
// that chunk i at position i moves as one message a step; reduce_scatter chooses chunk bit_reverse(i) for
// position i (power-of-two lines only) and halves with the nearest partner first, allgather is its inverse.
// The allreduce is Rabenseifner's: one then the other.
bool is_power_of_two(int p);
Schedule halving_doubling_reduce_scatter_to(const Line& line, const std::vector<ElementRange>& owned);
Schedule halving_doubling_allgather_from(const Line& line, const std::vector<ElementRange>& owned);
Schedule halving_doubling_reduce_scatter(const Line& line, ElementRange range,
                                         std::vector<ElementRange>& owned);
Schedule halving_doubling_allgather(const Line& line, const std::vector<ElementRange>& owned);
Schedule halving_doubling_allreduce(const Line& line, ElementRange range);
extern const LineOperations halving_doubling_line;
ClosedForm halving_doubling_closed_form(const ClosedFormInput& input);

// bucket2d.cpp: the 2D bucket allreduce, bidirectional rings composed over the two group dimensions.
Schedule bucket2d_allreduce(const topo::Group& group, const AlgorithmInput& input);
ClosedForm bucket2d_closed_form(const ClosedFormInput& input);

// multiport.cpp: one bucket allreduce (reduce-scatter, allgather) per torus dimension on 1/d of the data,
// each starting along its own dimension (the cores merged into it), all at once, so that every link of every
// chip works. Fits groups with at least two dimensions between chips, optionally the chip's cores first
// ("core,x,y").
std::string multiport_fits(const topo::Group& group, const AlgorithmInput& input);
Schedule multiport_allreduce(const topo::Group& group, const AlgorithmInput& input);
Schedule multiport_reduce_scatter(const topo::Group& group, const AlgorithmInput& input);
Schedule multiport_allgather(const topo::Group& group, const AlgorithmInput& input);
ClosedForm multiport_closed_form(const ClosedFormInput& input);

// recursive_doubling.cpp: along each group dimension in turn, log2 k exchanges of the whole buffer (extra
// members folded): the latency-optimal allreduce for small messages; any group.
Schedule recursive_doubling_allreduce(const topo::Group& group, const AlgorithmInput& input);
ClosedForm recursive_doubling_closed_form(const ClosedFormInput& input);

// hierarchical.cpp: on a multislice pod, ICI reduce-scatter in each slice, DCN ring allreduce of each share
// across the slices, ICI allgather; fits groups that span slices with the same number of members in each.
std::string hierarchical_fits(const topo::Group& group, const AlgorithmInput& input);
Schedule hierarchical_allreduce(const topo::Group& group, const AlgorithmInput& input);
ClosedForm hierarchical_closed_form(const ClosedFormInput& input);

// pairwise_alltoall.cpp: p-1 staged rounds, in round s position i sends to position i+s. Every all-to-all
// needs an element count divisible by the group size (alltoall_fits_divisible).
std::string alltoall_fits_divisible(const topo::Group& group, const AlgorithmInput& input);
Schedule pairwise_alltoall(const topo::Group& group, const AlgorithmInput& input);
ClosedForm pairwise_alltoall_closed_form(const ClosedFormInput& input);

// direct_alltoall.cpp: every pair at once, one round (only for small groups: flows all share the network).
std::string direct_alltoall_fits(const topo::Group& group, const AlgorithmInput& input);
Schedule direct_alltoall(const topo::Group& group, const AlgorithmInput& input);

// binomial_broadcast.cpp: ceil(log2 p) rounds, the whole buffer from position 0.
Schedule binomial_broadcast(const topo::Group& group, const AlgorithmInput& input);
ClosedForm binomial_broadcast_closed_form(const ClosedFormInput& input);

// pipeline_broadcast.cpp: the buffer in segments down the chain 0 -> 1 -> ... -> p-1, the segment count
// chosen from the inter-chip link.
Schedule pipeline_broadcast(const topo::Group& group, const AlgorithmInput& input);

// direct_permute.cpp: every (source, destination) pair of request.permutation moves its whole buffer in one
// round.
Schedule direct_permute(const topo::Group& group, const AlgorithmInput& input);
ClosedForm direct_permute_closed_form(const ClosedFormInput& input);

}  // namespace tpusim::sim::algorithms
