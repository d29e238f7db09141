#pragma once
// What lowering counts, like Mesh-TensorFlow's counters: per op FLOPs per core, per collective its kind, mesh
// dims and bytes, per tensor its slice bytes per core. All of it is known after lowering, without running.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "sim/collective.hpp"

namespace tpusim::mtf {

struct TensorCost {
  int tensor = -1;
  std::string name;
  std::string layout;  // "[batch:8 @rows, io:16]"
  DType dtype = DType::float32;
  Phase phase = Phase::forward;  // phase of the producing op
  std::uint64_t slice_bytes_per_core = 0;
  bool is_variable = false;
  bool is_optimizer_slot = false;  // a variable created by an optimizer
  bool kept_for_backward = false;  // a forward tensor read by a backward op (activation memory)
};

struct OpCost {
  int op = -1;
  std::string name;
  OpKind kind = OpKind::fill;
  Phase phase = Phase::forward;
  double flops_per_core = 0;
  double hbm_bytes_per_core = 0;  // inputs read + output written, by dtype
  double time_s = 0;              // roofline on the device model
};

// One collective as the backend issues it to the interconnect (collective_backend.hpp): the kind that runs,
// over which mesh dims, on how many elements of how many bytes per core.
struct IssuedCollective {
  sim::CollectiveKind kind = sim::CollectiveKind::allreduce;
  sim::ReduceOp reduce = sim::ReduceOp::sum;
  std::vector<int> mesh_dims;  // indices into the mesh
  std::uint64_t elements_per_core = 0;
  std::uint32_t element_bytes = 4;
  // Empty when it is the collective itself, else how it stands in: "masked allreduce of 32 copies".
  std::string how;
};

struct CollectiveRecord {
  int op = -1;  // graph op whose lowering needs it
  std::string op_name;
  std::string tensor;  // tensor being reduced / re-laid out
  std::string reason;  // "einsum", "reduce_max", "allconcat", "alltoall", "shift", "fetch", ...
  sim::CollectiveKind kind = sim::CollectiveKind::allreduce;
  sim::ReduceOp reduce = sim::ReduceOp::sum;
  std::vector<std::string> mesh_dims;
  int group_size = 1;
  int num_groups = 1;
  std::uint64_t elements_per_core = 0;  // per member buffer (allgather: the gathered output)
  // What the backend issues for it (one or more, run in turn) and their bytes per core: element_bytes is the
  // first one's, which may differ from the tensor's dtype (a bfloat16 allreduce done in float32).
  std::vector<IssuedCollective> issued;
  std::uint32_t element_bytes = 4;
  std::uint64_t bytes_per_core = 0;
  std::string key() const;  // "allreduce/cols/einsum"
};

struct Counters {
  std::vector<OpCost> ops;
  std::vector<CollectiveRecord> collectives;
  std::vector<TensorCost> tensors;  // indexed by tensor id
  double flops_per_core = 0;

  // Sum of elements_per_core over collectives of `kind` whose mesh dims are exactly `mesh_dims` (phase
  // filter optional).
  std::uint64_t elements(sim::CollectiveKind kind, const std::vector<std::string>& mesh_dims) const;
  std::map<std::string, std::uint64_t> by_key() const;   // key() -> elements per core
  std::uint64_t variable_bytes_per_core() const;         // model variables (not slots)
  std::uint64_t optimizer_state_bytes_per_core() const;  // slot variables
  std::uint64_t kept_activation_bytes_per_core() const;
  std::string summary() const;  // printable table
};

}  // namespace tpusim::mtf
