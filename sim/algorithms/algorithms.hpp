#pragma once
// The schedule builders, one file per algorithm. A "line" is the members of one group dimension (or of a
// whole group, flattened in group order) in ring order: position i's ring neighbours are i-1 and i+1 (mod p).
// `owned[i]` is the element range position i holds reduced after a reduce-scatter (and contributes to an
// allgather); the ranges need not be equal or adjacent.
#include <vector>

#include "sim/collective.hpp"
#include "sim/schedule.hpp"

namespace tpusim::sim::algorithms {

using Line = std::vector<Rank>;

// ring.cpp: one direction, p-1 steps per phase.
Schedule ring_reduce_scatter(const Line& line, const std::vector<ElementRange>& owned);
Schedule ring_allgather(const Line& line, const std::vector<ElementRange>& owned);
Schedule ring_allreduce(const Line& line, ElementRange range);

// bidir_ring.cpp: every range split in halves, the first travelling +1 and the second -1 around the ring.
Schedule bidir_ring_reduce_scatter(const Line& line, const std::vector<ElementRange>& owned);
Schedule bidir_ring_allgather(const Line& line, const std::vector<ElementRange>& owned);
Schedule bidir_ring_allreduce(const Line& line, ElementRange range);

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

// pairwise_alltoall.cpp: p-1 staged rounds, in round s position i sends to position i+s.
Schedule pairwise_alltoall(const Line& line, std::uint64_t elements);
// direct_alltoall.cpp: every pair at once, one round (only for small groups: flows all share the network).
Schedule direct_alltoall(const Line& line, std::uint64_t elements);

// binomial_broadcast.cpp: ceil(log2 p) rounds, the whole buffer from position 0.
Schedule binomial_broadcast(const Line& line, std::uint64_t elements);
// pipeline_broadcast.cpp: the buffer in `segments` pieces down the chain 0 -> 1 -> ... -> p-1.
Schedule pipeline_broadcast(const Line& line, std::uint64_t elements, std::uint64_t segments);

// direct_permute.cpp: every (source, destination) pair moves its whole buffer in one round.
Schedule direct_permute(const std::vector<std::pair<Rank, Rank>>& pairs, std::uint64_t elements);

}  // namespace tpusim::sim::algorithms
