#pragma once
// The lowered SPMD program (internal to mesh_tf): values are laid-out tensors held as one buffer per distinct
// slice, steps are local computations on slices or collectives over mesh dimensions.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mesh_tf/attention_kernel.hpp"
#include "mesh_tf/buffer_liveness.hpp"
#include "mesh_tf/counters.hpp"
#include "mesh_tf/device_model.hpp"
#include "mesh_tf/mesh_shape.hpp"
#include "mesh_tf/shape.hpp"
#include "mesh_tf/tensor_layout.hpp"

namespace tpusim::mtf {

// A laid-out tensor. Processors that differ only along mesh dims outside `varying` hold the same slice, so
// the data holds num_slices slices of layout.slice_elements() floats; a slice's key is the processor's
// coordinates along `varying` (mixed radix, last fastest). `pending` mesh dims hold partial sums still to be
// allreduced.
struct Value {
  // A layout has no empty state, so neither has a value: make_value builds both.
  explicit Value(TensorLayout layout) : layout(std::move(layout)) {}

  int id = -1;
  int tensor = -1;  // graph tensor it lays out (-1 for temporaries)
  std::string name;
  TensorLayout layout;  // the shape, the mesh dim (or none) of each tensor dim, the slice sizes
  DType dtype = DType::float32;
  std::vector<int> pending;  // ascending
  std::vector<int> varying;  // ascending: split mesh dims and pending ones
  int num_slices = 1;
  int producer_step = -1;  // -1: a source (input, variable) available at step start
  // rematerialization.hpp: dropped after its last read before this step and computed again for it (-1: held)
  int rematerialized_at = -1;

  std::uint64_t slice_bytes() const {
    return static_cast<std::uint64_t>(layout.slice_elements()) * dtype_bytes(dtype);
  }
  // The key of the slice that processor coordinates `coords` hold.
  int key_of(const std::vector<int>& coords, const MeshShape& mesh) const;
  // Coordinates along `varying` of a key.
  std::vector<int> coords_of_key(int key, const MeshShape& mesh) const;
  // Offset of this slice along tensor dim i, given coordinates along all mesh dims.
  std::int64_t offset(int i, const std::vector<int>& mesh_coords) const;
};

Value make_value(int id, int tensor, const std::string& name, TensorLayout layout, DType dtype,
                 std::vector<int> pending, const MeshShape& mesh);

using Store = std::vector<std::vector<float>>;  // value id -> data (empty in timing-only mode)

// allreduce, allconcat, alltoall and permute are Mesh-TensorFlow's (issued as collective_backend.hpp says);
// reduce_scatter (a pending sum whose result is split along the summed mesh dim) and allgather are what XLA's
// weight-update sharding emits (Xu et al. 2020, optimizer.hpp), issued as themselves by every backend.
enum class CollectiveOp { allreduce, allconcat, alltoall, permute, reduce_scatter, allgather };

// How XLA may fuse a local step (fusion.hpp): an elementwise step fuses into the step that reads its output;
// a reduction takes elementwise producers in but is not fused into what follows; a contraction (a matmul or
// convolution on the matrix unit) takes elementwise producers into its operand reads and elementwise
// consumers into its output; `none` neither (copies and relayouts).
enum class FusionRole { none, elementwise, reduction, contraction };

struct Step {
  bool is_comm = false;
  int op = -1;
  std::string label;
  std::vector<int> inputs;  // value ids
  int output = -1;          // value id
  // compute
  double flops = 0, hbm_bytes = 0, time_s = 0;
  double transcendentals = 0;                    // among flops (vector_unit.hpp)
  double extra_vector_ops = 0;                   // vector operations beside the flops (random bits)
  double overhead_s = 0;                         // of time_s
  ComputeBound bound = ComputeBound::flop_rate;  // what set the rest of time_s
  double compute_s = 0;                          // its compute term alone, on compute_bound's unit
  ComputeBound compute_bound = ComputeBound::flop_rate;
  double reread_bytes = 0;    // of hbm_bytes: a matmul's operand read again (vector-memory blocking)
  int fused_into = -1;        // fusion.hpp: the last step of the fusion that computes this one, if another
  bool duplicated = false;    // fusion.hpp: computed again inside each fusion that reads it, never stored
  double executed_flops = 0;  // numerics: flops over all distinct slices (replicas are computed once)
  bool is_einsum = false;
  FusionRole fusion = FusionRole::none;
  // The fused attention kernel (attention_kernel.hpp) whose forward or (kernel_backward) backward pass this
  // step is part of; -1 for none. Such steps are fused by their kernel, not by fusion.hpp's rules.
  int attention_kernel = -1;
  bool kernel_backward = false;
  std::function<void(Store&)> kernel;
  // collective
  CollectiveOp collective = CollectiveOp::allreduce;
  CollectiveRecord record;
  std::vector<int> mesh_dims;  // of the collective
  // allconcat, allgather: the dim gathered; alltoall: the dim concatenated (was split); reduce_scatter: the
  // dim newly split
  int tensor_dim = -1;
  int tensor_dim2 = -1;           // alltoall: dim newly split
  std::int64_t shift_offset = 0;  // permute
  bool shift_wrap = false;
  std::string signature;  // identical signatures have identical simulated time
  // allreduce_combiner.hpp: the collective this one was combined into, or the steps a combined one carries
  // (itself last).
  int combined_into = -1;
  std::vector<int> combined_steps;
};

struct Assignment {
  int variable_value;
  int new_value;
};

struct Program {
  MeshShape mesh;
  std::vector<Value> values;
  std::vector<Step> steps;
  std::vector<int> value_of_tensor;  // graph tensor id -> value id holding its final (forced if needed) data
  std::vector<int> raw_value_of_tensor;  // graph tensor id -> value id as produced (may be pending)
  std::vector<Assignment> assignments;
  Rematerialization rematerialization;  // rematerialization.hpp
  std::vector<int> kept_values;  // must reach HBM whoever reads them: outputs and new values of variables
  std::vector<AttentionKernel> attention_kernels;  // the graph's, by Step::attention_kernel
  Counters counters;
};

}  // namespace tpusim::mtf
