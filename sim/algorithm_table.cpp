// The rows of the algorithm registry (sim/algorithm_registry.hpp): the one place that lists the collective
// algorithms. A row names the parts its algorithm's file exports (sim/algorithms/algorithms.hpp).
#include "sim/algorithm_registry.hpp"
#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim {

std::vector<AlgorithmRow> algorithm_rows() {
  using K = CollectiveKind;
  using S = GroupShape;
  using A = AutoEligibility;
  namespace a = algorithms;
  // kind, name, description, default, whether auto may choose it, shape, fit check, builder, closed form,
  // line operations, needs neighbour links (rings and chains; false when left out), needs a multislice pod
  // (false when left out).
  return {
      {K::allreduce, "ring", "unidirectional ring: reduce-scatter then allgather, 2(p-1) steps", false,
       A::may_choose, S::per_dimension, nullptr, nullptr, a::ring_closed_form, &a::ring_line, true},
      {K::allreduce, "bidir_ring", "bidirectional ring, half the data each way", true, A::may_choose,
       S::per_dimension, nullptr, nullptr, a::bidir_ring_closed_form, &a::bidir_ring_line, true},
      {K::allreduce, "bucket2d",
       "2D bucket: reduce-scatter along dimension 0, allreduce along dimension 1 on 1/k0 of the data, "
       "allgather back; bidirectional rings",
       false, A::may_choose, S::two_dimensional, nullptr, a::bucket2d_allreduce, a::bucket2d_closed_form,
       nullptr, true},
      {K::allreduce, "multiport",
       "one 2D bucket allreduce per torus dimension on 1/d of the data, each starting along its own "
       "dimension with the cores merged in, all at once: every link of every chip busy",
       false, A::may_choose, S::per_axis, a::multiport_fits, a::multiport_allreduce, a::multiport_closed_form,
       nullptr, true},
      {K::allreduce, "recursive_doubling",
       "whole buffer exchanged with partners 1, 2, 4, ... positions away, log2 k steps along each group "
       "dimension in turn (extra members folded): fewest steps, for small messages",
       false, A::may_choose, S::per_axis, nullptr, a::recursive_doubling_allreduce,
       a::recursive_doubling_closed_form, nullptr},
      {K::allreduce, "halving_doubling",
       "Rabenseifner: recursive halving reduce-scatter, recursive doubling allgather; extra ranks folded",
       false, A::may_choose, S::per_dimension, nullptr, nullptr, a::halving_doubling_closed_form,
       &a::halving_doubling_line},

      {K::allreduce, "hierarchical",
       "multislice pods: bidirectional ring reduce-scatter in each slice over ICI, ring allreduce of each "
       "share across slices over the DCN, allgather back; groups that span slices",
       false, A::may_choose, S::any, a::hierarchical_fits, a::hierarchical_allreduce,
       a::hierarchical_closed_form, nullptr, false, /*needs_multislice=*/true},

      {K::reduce_scatter, "ring", "unidirectional ring, p-1 steps", false, A::may_choose, S::per_dimension,
       nullptr, nullptr, a::ring_closed_form, &a::ring_line, true},
      {K::reduce_scatter, "bidir_ring", "bidirectional ring, half of every chunk each way", true,
       A::may_choose, S::per_dimension, nullptr, nullptr, a::bidir_ring_closed_form, &a::bidir_ring_line,
       true},
      {K::reduce_scatter, "multiport",
       "one bucket reduce-scatter per torus dimension on 1/d of every chunk, each starting along its own "
       "dimension, all at once: every link of every chip busy",
       false, A::may_choose, S::per_axis, a::multiport_fits, a::multiport_reduce_scatter,
       a::multiport_closed_form, nullptr, true},
      {K::reduce_scatter, "halving_doubling",
       "recursive halving, partner j xor p/2, p/4, ..., 1: log2 p steps, each on half the data left; extra "
       "ranks folded",
       false, A::may_choose, S::per_dimension, nullptr, nullptr, a::halving_doubling_closed_form,
       &a::halving_doubling_line},

      {K::allgather, "ring", "unidirectional ring, p-1 steps", false, A::may_choose, S::per_dimension,
       nullptr, nullptr, a::ring_closed_form, &a::ring_line, true},
      {K::allgather, "bidir_ring", "bidirectional ring, half of every chunk each way", true, A::may_choose,
       S::per_dimension, nullptr, nullptr, a::bidir_ring_closed_form, &a::bidir_ring_line, true},
      {K::allgather, "multiport",
       "one bucket allgather per torus dimension on 1/d of every chunk, each starting along its own "
       "dimension, all at once: every link of every chip busy",
       false, A::may_choose, S::per_axis, a::multiport_fits, a::multiport_allgather, a::multiport_closed_form,
       nullptr, true},
      {K::allgather, "halving_doubling",
       "recursive doubling, partner j xor 1, 2, ..., p/2: log2 p steps, the data held doubling each step; "
       "extra ranks folded",
       false, A::may_choose, S::per_dimension, nullptr, nullptr, a::halving_doubling_closed_form,
       &a::halving_doubling_line},

      {K::alltoall, "pairwise", "p-1 staged rounds, round s sends to the member s positions ahead", true,
       A::may_choose, S::any, a::alltoall_fits_divisible, a::pairwise_alltoall,
       a::pairwise_alltoall_closed_form, nullptr},
      {K::alltoall, "direct", "all p(p-1) flows at once (small groups only)", false, A::may_choose, S::any,
       a::direct_alltoall_fits, a::direct_alltoall, nullptr, nullptr},

      {K::broadcast, "binomial", "binomial tree from position 0, ceil(log2 p) rounds of the whole buffer",
       true, A::may_choose, S::any, nullptr, a::binomial_broadcast, a::binomial_broadcast_closed_form,
       nullptr},
      {K::broadcast, "pipeline", "chain 0 -> 1 -> ... -> p-1 with the buffer cut in segments", false,
       A::may_choose, S::any, nullptr, a::pipeline_broadcast, nullptr, nullptr, true},

      {K::permute, "direct", "every (source, destination) pair at once", true, A::may_choose, S::any, nullptr,
       a::direct_permute, a::direct_permute_closed_form, nullptr},
  };
}

}  // namespace tpusim::sim
