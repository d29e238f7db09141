#pragma once
// One training run of a config: builds the model into a graph, adds the optimizer, lowers it onto the mesh
// (mtf::Executor) over the simulated pod (sim::Simulator) and runs the configured steps, in full numerics or
// timing only. Creates the process's one Simulator, so call it at most once per process.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mesh_tf/counters.hpp"
#include "mesh_tf/execution.hpp"
#include "mesh_tf/timeline.hpp"
#include "workloads/config/run_config.hpp"
#include "workloads/flop_accounting.hpp"
#include "workloads/models/model_builder.hpp"
#include "workloads/pipeline_report.hpp"

namespace tpusim::sim {
class Simulator;
}

namespace tpusim::workloads {

struct StepRecord {
  int step = 0;
  std::optional<double> loss;  // full numerics only
  double step_time_s = 0;      // simulated
};

// Per core. The categories are what the step holds, each counted whole: their sum is an upper bound, since
// gradients are produced while the activations kept for them are released and fusion keeps many
// intermediates on chip. total_bytes, which decides whether the step fits, is the largest set of buffers live
// at once (mesh_tf/buffer_liveness.hpp, as XLA's buffer assignment sees it).
struct MemoryReport {
  std::uint64_t parameter_bytes = 0;
  std::uint64_t gradient_bytes = 0;
  std::uint64_t optimizer_state_bytes = 0;
  std::uint64_t activation_bytes = 0;  // forward tensors read by the backward pass
  std::uint64_t sum_bytes = 0;         // of the four categories
  std::uint64_t total_bytes = 0;       // peak of live buffers
  std::uint64_t hbm_bytes = 0;
  mtf::Rematerialization rematerialization;  // what was computed again (hardware.rematerialization)
  bool fits() const { return total_bytes <= hbm_bytes; }
};

// From the engine's counters: variables (not optimizer slots), slot variables, forward tensors read by the
// backward pass, and the gradient tensors the optimizer consumes.
MemoryReport memory_per_core(const mtf::Counters& counters, const std::vector<mtf::Tensor>& gradients,
                             const mtf::LiveMemory& live, std::uint64_t hbm_bytes);

// Collectives of one step with the same kind, mesh axes, reason and size, merged.
struct CollectiveGroup {
  std::string kind;
  std::string mesh_axes;  // "batch", "model", "batch,model"
  std::string reason;     // what needed it: einsum, reduce_max, alltoall, ...
  int group_size = 0;
  int count = 0;
  std::uint64_t bytes_per_core = 0;  // one call
  double time_s = 0;                 // all calls
  double busbw_Bps = 0;              // of one call
};

struct RunReport {
  std::string mesh_mapping;  // where the mesh runs: "model = core+x, batch = y" (mtf::MeshMapping::note)
  // On a pod with faults (hardware.faults), the step time of the same config on the healthy pod; 0 when the
  // pod is healthy or no baseline was run (tpusim run runs one).
  double healthy_step_time_s = 0;
  std::int64_t parameters = 0;
  double model_flops_per_step = 0;    // closed form (models/model_formulas.hpp), whole pod
  double counted_flops_per_core = 0;  // every op the engine lowered, one step
  FlopBreakdown counted;              // the same, split into matmuls and other work
  std::vector<StepRecord> steps;
  mtf::Timeline timeline;     // of the last step
  double achieved_flops = 0;  // model FLOPs / step time, whole pod
  double mfu = 0;             // achieved / (peak per core * cores)
  // Work per simulated second, comparable across pods of any size (weak and strong scaling): model FLOPs per
  // core, and the tokens (batch x length) and examples (sequences; the MLP's examples and the images, each
  // one token) of a step.
  double flops_per_s_per_core = 0;  // achieved_flops / cores
  double tokens_per_step = 0;       // models/model_kinds.hpp tokens_per_step
  double tokens_per_s = 0;          // tokens_per_step / step time
  double examples_per_s = 0;        // model.batch / step time
  std::string example_unit;         // what model.batch counts: "sequences", "images" or "examples" (the MLP)
  std::vector<mtf::CollectiveTiming> collectives;  // of the last step, program order
  std::vector<CollectiveGroup> collective_groups;  // merged, by total time, largest first
  MemoryReport memory;
  std::optional<PipelineReport> pipeline;  // pipelined runs only (training.pipeline_stages, microbatches)
  double wall_s = 0;                       // measured on this machine: building, lowering and simulating
  // Under hardware.calibration: the profile's name and the step of the mechanisms alone (the timeline and
  // every figure above are the calibrated step's); empty and 0 otherwise.
  std::string calibration;
  double uncalibrated_step_time_s = 0;
};

struct RunOptions {
  std::function<void(const StepRecord&)> on_step;  // progress, e.g. printing the loss
  bool share_collective_times = true;              // mtf::ExecutionOptions's
  // When the memory per core exceeds this (0: never), no step runs: the report has the memory and the
  // counters, no steps and no timeline. A search needs no step time of a config that cannot run.
  std::uint64_t memory_limit_bytes = 0;
  // Build and lower the program and take its memory, but run no step: what a sweep's --dry-run needs to say
  // whether a point can be laid out and fits, without simulating it.
  bool lower_only = false;
};

// InputError for config problems found while building or lowering (layout legality, algorithm names), located
// at the config key through RunConfig::where.
RunReport run_training(const RunConfig& config, const RunOptions& options = {});

// What a config's model and training keys build, whatever the mesh and layout: the graph with the model, its
// loss and the optimizer's updates. A search builds it once and lays it out on each candidate mesh.
struct TrainingProgram {
  explicit TrainingProgram(const RunConfig& config);
  TrainingProgram(const TrainingProgram&) = delete;
  TrainingProgram& operator=(const TrainingProgram&) = delete;
  mtf::Graph graph;
  BuiltModel model;
  std::vector<mtf::Tensor> gradients;
  // With weight-update sharding on, the layout to lower with: the config's plus the shard rules (the graph
  // then depends on the mesh and layout it was built for: built_for, "<shape>|<layout>"). Without it,
  // run_training lowers with each config's own layout (a search shares one program among candidates).
  mtf::LayoutRules layout;
  std::string built_for;
};

// run_training on a program built from `config`'s model and training keys, on a simulator of its topology
// (sim/simulator.hpp: one per process, so a search passes the same one for every candidate).
RunReport run_training(const RunConfig& config, const TrainingProgram& program, sim::Simulator& simulator,
                       const RunOptions& options = {});

}  // namespace tpusim::workloads
