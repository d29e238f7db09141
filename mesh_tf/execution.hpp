#pragma once
// Runs a graph under a mesh and layout: lowering at construction (counters available at once), then steps.
// Numerics mode keeps every processor's real fp32 slices (one copy per distinct slice: replicas share it) and
// runs the local einsums on OpenBLAS; every collective goes through sim::Simulator, which moves and reduces
// the real data. Timing-only mode carries shapes but no data; both give the identical timeline.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mesh_tf/buffer_liveness.hpp"
#include "mesh_tf/collective_backend.hpp"
#include "mesh_tf/counters.hpp"
#include "mesh_tf/device_model.hpp"
#include "mesh_tf/fusion.hpp"
#include "mesh_tf/graph.hpp"
#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/mesh_mapping.hpp"
#include "mesh_tf/mesh_shape.hpp"
#include "mesh_tf/overlap_policy.hpp"
#include "mesh_tf/rematerialization.hpp"
#include "mesh_tf/tensor_layout.hpp"
#include "mesh_tf/timeline.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::sim {
class Simulator;
}

namespace tpusim::mtf {

struct ExecutionOptions {
  bool numerics = true;
  DeviceModel device = DeviceModel::tpu_v2_core();
  // Allreduce and allgather algorithm per mesh dimension (names of sim/algorithm_registry.hpp); mesh dims not
  // listed use default_algorithm, "" meaning the registry's default for the collective. All-to-all and
  // permute use the registry's default for their kind. Every collective of the program is checked against
  // them when the executor is built (CollectiveAlgorithmError).
  std::map<std::string, std::string> algorithms;
  std::string default_algorithm;
  // An allreduce algorithm for sums over every core of the pod, run as one collective on the torus's own
  // axes (pod_allreduce.hpp); "": such a sum runs over the mesh's axes as any other, composed axis by axis.
  std::string pod_allreduce;
  // Where the mesh processors run on the simulator's topology (mapping_spec.hpp): rings by default, linear,
  // or an explicit assignment of physical axes. Without a simulator processor i is rank i whatever it says.
  MappingSpec mapping;
  // Tensors materialised on the devices as part of the step (their pending allreduces are lowered and
  // counted), e.g. a model output that nothing else reads. Fetching does not add collectives.
  std::vector<Tensor> outputs;
  // How collectives are issued (collective_backend.hpp): as Mesh-TensorFlow's TPU backend did by default.
  CollectiveBackend collective_backend = CollectiveBackend::mesh_tf_tpu;
  // How XLA fuses local steps (fusion.hpp).
  FusionPolicy fusion = FusionPolicy::xla;
  // XLA's all-reduce combiner threshold in bytes per core (allreduce_combiner.hpp); 0 combines nothing.
  std::uint64_t allreduce_combine_bytes = 0;
  // Whether values are computed again rather than held: to fit the HBM, or layer by layer
  // (rematerialization.hpp).
  RematerializationPolicy rematerialization = RematerializationPolicy::none;
  LayerCheckpointPolicy layer_checkpoint;  // under `layers`, what each layer holds (rematerialization.hpp)
  // Whether collectives overlap compute (overlap_policy.hpp).
  OverlapPolicy overlap = OverlapPolicy::dependencies;
  // Whether collective times are remembered for every executor on the same simulator (identical requests,
  // identical times), or only for this one: a search compares the two to show its cache changes nothing.
  bool share_collective_times = true;
};

// An algorithm of ExecutionOptions cannot run a collective the program needs (an unknown name, an allconcat
// along a mesh dimension whose algorithm has no allgather, a group shape it does not fit). Raised when the
// executor is built, so callers can point at the option rather than at the layout.
class CollectiveAlgorithmError : public InputError {
 public:
  // `pod_allreduce`: the algorithm at fault is ExecutionOptions::pod_allreduce, not a mesh axis's.
  CollectiveAlgorithmError(const std::string& message, bool pod_allreduce)
      : InputError(message), pod_allreduce_(pod_allreduce) {}
  bool pod_allreduce() const { return pod_allreduce_; }

 private:
  bool pod_allreduce_;
};

struct CollectiveTiming {
  CollectiveRecord record;
  double time_s = 0;
  double busbw_Bps = 0;
};

struct StepResult {
  std::vector<std::vector<float>> fetched;  // full values of the fetched tensors (numerics only)
  double loss = 0;                          // fetched[0][0] when the first fetch is a scalar (numerics)
  Timeline timeline;
  std::vector<CollectiveTiming> collectives;  // in program order, with simulated time
  // Numerics only, measured on this machine: wall time inside the einsum kernels and the FLOPs they executed
  // (each distinct slice once), for the engine-overhead benchmark.
  double einsum_wall_s = 0;
  double einsum_executed_flops = 0;
};

class Executor {
 public:
  // Lowers `graph` (which must outlive the executor). With a simulator, the mesh must have as many processors
  // as its topology has cores (InputError otherwise) and every collective is simulated; with nullptr,
  // collectives move data directly and take zero time (reference runs, single-core meshes).
  Executor(const Graph& graph, MeshShape mesh, LayoutRules rules, sim::Simulator* simulator,
           ExecutionOptions options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const MeshShape& mesh() const;
  const MeshMapping& mapping() const;
  const Counters& counters() const;
  // The largest set of buffers live at once per core (buffer_liveness.hpp).
  LiveMemory live_memory() const;
  const TensorLayout& layout(const Tensor& tensor) const;

  // Numerics: the full value of an input for the next steps (row-major in the tensor's dim order).
  void feed(const Tensor& input, const std::vector<float>& values);
  // Runs one step: forward, backward, updates (assigns take effect at the end). Fetches are evaluated
  // before the updates. In numerics mode, every input must have been fed.
  StepResult run(const std::vector<Tensor>& fetches = {});
  // Numerics: the full current value of a variable (assembled from its slices).
  std::vector<float> variable_value(const Tensor& variable) const;
  void set_variable_value(const Tensor& variable, const std::vector<float>& values);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tpusim::mtf
