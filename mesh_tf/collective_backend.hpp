#pragma once
// How each collective of a lowered program is issued to the interconnect: which collective actually runs, on
// how many elements of how many bytes. Two backends (config hardware.collective_backend):
//
// mesh_tf_tpu, the default: as Mesh-TensorFlow's TPU backend issued them (tensorflow/mesh,
// mesh_tensorflow/simd_mesh_impl.py, class SimdMeshImpl):
//   allreduce (sum)   cross_replica_sum in the tensor's dtype, except that a bfloat16 tensor is cast to
//   float32
//                     when the group has more than allreduce_in_bfloat16_max_group_size = 8 cores
//   allreduce (max)   for each mesh dim in turn, allconcat(stack=True) and a local reduction: a masked
//                     allreduce (sum) of group-size copies of the tensor, the bfloat16 rule as above
//   allconcat         a masked allreduce (sum): the slice times a one-hot mask over the group, so group-size
//                     times the data ("TODO(noam): inefficient - replace with a XLA allconcat when
//                     available")
//   alltoall          all_to_all, a float32 tensor sent as bfloat16 ("There seems to be a bug with float32
//                     alltoall. Do it in bfloat16 until the bug is fixed.")
//   permute (shift)   collective_permute in the tensor's dtype
// reduce_scatter and allgather (XLA's, for weight-update sharding: optimizer.hpp) are issued as themselves by
// both backends, a reduce-scatter in the allreduce's element size.
// ideal: each as the collective it stands for, in the tensor's dtype: allreduce, allgather, alltoall,
// permute.
//
// The engine's numbers stay float32 throughout (a dtype is a byte count here): the masked forms give the same
// results as the collectives they stand for, exactly, so only the time changes.
#include <vector>

#include "mesh_tf/mesh_shape.hpp"
#include "mesh_tf/program.hpp"
#include "topologies/support/name_table.hpp"

namespace tpusim::mtf {

enum class CollectiveBackend { mesh_tf_tpu, ideal };
const NameTable<CollectiveBackend>& collective_backends();  // "mesh_tf_tpu", "ideal"

// Mesh-TensorFlow's allreduce_in_bfloat16_max_group_size (simd_mesh_impl.py).
constexpr int kBfloat16AllreduceMaxGroup = 8;

// The collectives `backend` issues for `op` over `mesh_dims` of a tensor of `dtype` with `elements_per_core`
// per member buffer (allconcat: the gathered output), in the order they run.
std::vector<IssuedCollective> issue(CollectiveBackend backend, CollectiveOp op, sim::ReduceOp reduce,
                                    DType dtype, const std::vector<int>& mesh_dims, const MeshShape& mesh,
                                    std::uint64_t elements_per_core);

}  // namespace tpusim::mtf
