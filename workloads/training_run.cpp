#include "workloads/training_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "mesh_tf/optimizer.hpp"
#include "sim/simulator.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/models/model_builder.hpp"
#include "workloads/models/model_formulas.hpp"
#include "workloads/models/model_kinds.hpp"
#include "workloads/synthetic_data.hpp"

namespace tpusim::workloads {
namespace {

mtf::Optimizer make_optimizer(const TrainingConfig& training) {
  mtf::OptimizerConfig optimizer;
  optimizer.kind = training.optimizer;
  optimizer.learning_rate = training.learning_rate;
  return mtf::Optimizer(optimizer);
}

}  // namespace

MemoryReport memory_per_core(const mtf::Counters& counters, const std::vector<mtf::Tensor>& gradients,
                             const mtf::LiveMemory& live, std::uint64_t hbm_bytes) {
  MemoryReport memory;
  memory.parameter_bytes = counters.variable_bytes_per_core();
  memory.optimizer_state_bytes = counters.optimizer_state_bytes_per_core();
  memory.activation_bytes = counters.kept_activation_bytes_per_core();
  for (const auto& gradient : gradients)
    memory.gradient_bytes += counters.tensors.at(gradient.id()).slice_bytes_per_core;
  memory.sum_bytes =
      memory.parameter_bytes + memory.gradient_bytes + memory.optimizer_state_bytes + memory.activation_bytes;
  memory.total_bytes = live.peak_bytes;
  memory.hbm_bytes = hbm_bytes;
  memory.rematerialization = live.rematerialization;
  return memory;
}

namespace {

std::string join_axes(const std::vector<std::string>& axes) { return axes.empty() ? "-" : join(axes, ","); }

std::vector<CollectiveGroup> group_collectives(const std::vector<mtf::CollectiveTiming>& collectives) {
  std::map<std::tuple<std::string, std::string, std::string, std::uint64_t>, CollectiveGroup> groups;
  for (const auto& c : collectives) {
    const std::string kind = sim::to_string(c.record.kind);
    const std::string axes = join_axes(c.record.mesh_dims);
    auto& group = groups[{kind, axes, c.record.reason, c.record.bytes_per_core}];
    group.kind = kind;
    group.mesh_axes = axes;
    group.reason = c.record.reason;
    group.group_size = c.record.group_size;
    group.bytes_per_core = c.record.bytes_per_core;
    group.count += 1;
    group.time_s += c.time_s;
    group.busbw_Bps = c.busbw_Bps;
  }
  std::vector<CollectiveGroup> sorted;
  for (auto& [key, group] : groups) sorted.push_back(group);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const CollectiveGroup& a, const CollectiveGroup& b) { return a.time_s > b.time_s; });
  return sorted;
}

// The mesh axis that splits the batch (every model kind's batch dim is "batch"): the data-parallel axis whose
// gradient allreduces weight sharding replaces.
std::optional<mtf::WeightSharding> training_weight_sharding(const RunConfig& config) {
  if (config.training.weight_sharding == mtf::WeightShardingMode::none) return std::nullopt;
  const auto axis = config.mesh.layout.mesh_dim_for("batch");
  const int m = axis ? config.mesh.shape.index_of(*axis) : -1;
  if (m < 0) return std::nullopt;
  return mtf::WeightSharding(*axis, config.mesh.shape.dim_size(m), config.mesh.layout);
}

bool training_shards_weights(const RunConfig& config) {
  return config.training.weight_sharding != mtf::WeightShardingMode::none;
}

std::string structure_of(const RunConfig& config) {
  return config.mesh.shape_text() + "|" + config.mesh.layout_text();
}

}  // namespace

namespace {

// Under full weight sharding the variables are stored sharded as the model builds them.
mtf::Graph& training_graph_for(mtf::Graph& graph, const RunConfig& config) {
  const auto sharding = training_weight_sharding(config);
  if (sharding && config.training.weight_sharding == mtf::WeightShardingMode::full)
    graph.shard_variables(*sharding);
  return graph;
}

}  // namespace

TrainingProgram::TrainingProgram(const RunConfig& config)
    : graph(config.training.seed),
      model(build_model(training_graph_for(graph, config), config.model)),
      layout(config.mesh.layout),
      built_for(structure_of(config)) {
  mtf::Optimizer optimizer = make_optimizer(config.training);
  const auto sharding = training_weight_sharding(config);
  const bool update = config.training.weight_sharding == mtf::WeightShardingMode::update;
  if (sharding && update) optimizer.shard_updates(*sharding);
  optimizer.stack_layers_along(model.stacked_dims);
  gradients = optimizer.minimize(graph, model.loss);
  if (sharding)
    layout = update ? optimizer.sharded_rules() : sharding->rules_with(graph.sharded_variable_dims());
}

RunReport run_training(const RunConfig& config, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const TrainingProgram program(config);
  sim::Simulator simulator(config.hardware.topology);
  RunReport report = run_training(config, program, simulator, options);
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report;
}

namespace {

// The rates of a step from its time: achieved FLOP/s, MFU, tokens and examples per second.
void set_rates(RunReport& report, const RunConfig& config) {
  const double step_s = report.timeline.step_time_s;
  if (step_s <= 0) return;
  report.achieved_flops = report.model_flops_per_step / step_s;
  report.mfu = report.achieved_flops / (config.hardware.device.peak_flops() * config.mesh.num_cores());
  report.flops_per_s_per_core = report.achieved_flops / config.mesh.num_cores();
  report.tokens_per_s = report.tokens_per_step / step_s;
  report.examples_per_s = double(config.model.batch) / step_s;
}

RunReport run_uncalibrated(const RunConfig& config, const TrainingProgram& built, sim::Simulator& simulator,
                           const RunOptions& options);

}  // namespace

// Under a calibration profile the step runs twice: with the mechanisms alone, which the report keeps beside,
// and on the calibrated device, with the profile's time per step outside the device program added as idle
// time at the step's end.
RunReport run_training(const RunConfig& config, const TrainingProgram& built, sim::Simulator& simulator,
                       const RunOptions& options) {
  if (!config.hardware.calibration) return run_uncalibrated(config, built, simulator, options);
  const CalibrationProfile& profile = *config.hardware.calibration;
  RunConfig plain = config;
  plain.hardware.calibration.reset();
  RunOptions quiet = options;
  quiet.on_step = nullptr;
  const double uncalibrated_s = run_uncalibrated(plain, built, simulator, quiet).timeline.step_time_s;
  RunConfig calibrated = plain;
  calibrated.hardware.device = calibrated_device(plain.hardware.device, profile);
  RunReport report = run_uncalibrated(calibrated, built, simulator, options);
  const double overhead_s = step_overhead_s(profile);
  report.timeline.step_time_s += overhead_s;
  report.timeline.idle_s += overhead_s;
  for (auto& step : report.steps) step.step_time_s += overhead_s;
  set_rates(report, config);
  report.calibration = profile.name;
  report.uncalibrated_step_time_s = uncalibrated_s;
  return report;
}

namespace {

RunReport run_uncalibrated(const RunConfig& config, const TrainingProgram& built, sim::Simulator& simulator,
                           const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  // Sharded weights are built for one mesh and layout (a search shares one program among candidates).
  std::unique_ptr<TrainingProgram> own;
  if (training_shards_weights(config) && built.built_for != structure_of(config))
    own = std::make_unique<TrainingProgram>(config);
  const TrainingProgram& program = own ? *own : built;
  const bool numerics = config.training.numerics == NumericsMode::full;
  RunReport report;
  report.parameters = parameter_count(config.model);
  report.model_flops_per_step = training_flops_per_step(config.model);
  report.tokens_per_step = tokens_per_step(config.model);
  report.example_unit = example_unit(config.model.kind);

  const mtf::Graph& graph = program.graph;
  const BuiltModel& model = program.model;
  const std::vector<mtf::Tensor>& gradients = program.gradients;

  mtf::ExecutionOptions execution;
  execution.numerics = numerics;
  // SPMD: every core waits for the slowest at the next collective, so a straggler sets every op's time.
  execution.device = config.hardware.device.slowed(config.hardware.topology.faults().slowest_straggler());
  execution.algorithms = config.hardware.collective_algorithm_by_axis;
  execution.mapping = config.mesh.mapping;
  execution.collective_backend = config.hardware.collective_backend;
  execution.overlap = config.hardware.overlap;
  execution.fusion = config.hardware.fusion;
  execution.rematerialization = config.hardware.rematerialization;
  execution.layer_checkpoint = config.hardware.layer_checkpoint_policy;
  execution.pod_allreduce = config.hardware.pod_allreduce;
  execution.allreduce_combine_bytes = config.hardware.allreduce_combine_bytes;
  execution.share_collective_times = options.share_collective_times;
  const mtf::LayoutRules& layout =
      training_shards_weights(config) ? program.layout : config.mesh.layout;
  std::unique_ptr<mtf::Executor> executor;
  try {
    executor = std::make_unique<mtf::Executor>(graph, config.mesh.shape, layout, &simulator, execution);
  } catch (const mtf::CollectiveAlgorithmError& error) {
    const char* key = error.pod_allreduce() ? "hardware.pod_allreduce" : "hardware.collectives";
    throw InputError(fmt::format("{}: {}", config.where(key), error.what()));
  } catch (const InputError& error) {
    throw InputError(fmt::format("{}: the model cannot be laid out on mesh {}: {}",
                                 config.where("mesh.layout"), config.mesh.shape_text(), error.what()));
  }
  report.mesh_mapping = executor->mapping().note();
  const mtf::Counters& counters = executor->counters();
  report.counted_flops_per_core = counters.flops_per_core;
  report.counted = flop_breakdown(graph, counters);
  report.memory =
      memory_per_core(counters, gradients, executor->live_memory(), config.hardware.device.hbm_bytes());
  report.pipeline = pipeline_report(config.model.pipeline, report.memory.activation_bytes);
  if (options.lower_only) return report;
  if (options.memory_limit_bytes > 0 && report.memory.total_bytes > options.memory_limit_bytes) return report;

  if (numerics) {
    for (const auto& input : model.inputs) {
      if (is_constant(input.role)) {
        executor->feed(input.tensor, synthetic_values(config.model, input.role, config.training.seed, 0));
      }
    }
  }
  for (int step = 0; step < config.training.steps; ++step) {
    if (numerics) {
      for (const auto& input : model.inputs) {
        if (is_constant(input.role)) continue;
        executor->feed(input.tensor, synthetic_values(config.model, input.role, config.training.seed, step));
      }
    }
    // Every collective's algorithm was checked when the executor was built.
    const mtf::StepResult result =
        executor->run(numerics ? std::vector<mtf::Tensor>{model.loss} : std::vector<mtf::Tensor>{});
    StepRecord record;
    record.step = step;
    if (numerics) record.loss = result.loss;
    record.step_time_s = result.timeline.step_time_s;
    report.steps.push_back(record);
    if (options.on_step) options.on_step(record);
    if (step + 1 == config.training.steps) {
      report.timeline = std::move(result.timeline);
      report.collectives = std::move(result.collectives);
    }
  }
  set_rates(report, config);
  report.collective_groups = group_collectives(report.collectives);
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report;
}

}  // namespace

}  // namespace tpusim::workloads
