#include "workloads/search/candidate_evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "sim/simulator.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/training_run.hpp"

namespace tpusim::workloads {

const char* to_string(CandidateOutcome::Status status) {
  switch (status) {
    case CandidateOutcome::Status::fits:
      return "fits";
    case CandidateOutcome::Status::over_cap:
      return "over_cap";
    case CandidateOutcome::Status::illegal:
      return "illegal";
  }
  return "illegal";
}

namespace {

constexpr const char* kCandidateFile = "candidate";

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point started) {
  return std::chrono::duration<double>(Clock::now() - started).count();
}

// "candidate:7: mesh.layout: problem" -> "mesh.layout: problem": the line is of a text nobody sees.
std::string without_location(const std::string& message) {
  const std::string prefix = std::string(kCandidateFile) + ":";
  if (message.rfind(prefix, 0) != 0) return message;
  const std::size_t end = message.find(": ", prefix.size());
  return end == std::string::npos ? message : message.substr(end + 2);
}

RunConfig timing_one_step(RunConfig config) {
  config.training.numerics = NumericsMode::timing;
  config.training.steps = 1;
  return config;
}

// What a config's program depends on besides the model and training keys every candidate shares: the
// pipeline (another graph) and, with sharded weights, the mode and the mesh and layout the variables are
// sharded for (TrainingProgram::built_for).
std::string evaluator_program_key(const RunConfig& config) {
  const auto sharding = config.training.weight_sharding;
  std::string key = fmt::format("{}x{}|{}", config.model.pipeline.stages, config.model.pipeline.microbatches,
                                mtf::weight_sharding_modes().name_of(sharding));
  if (sharding != mtf::WeightShardingMode::none)
    key += "|" + config.mesh.shape_text() + "|" + config.mesh.layout_text();
  return key;
}

// Programs with sharded weights kept at once: each serves the candidates of one mesh and layout, which an
// exhaustive search evaluates one after the other (search_space.hpp), so a few suffice, and a search over
// many meshes does not keep a graph for each.
constexpr std::size_t kShardedProgramsKept = 2;

sim::SimOptions isolated(bool remember_results) {
  sim::SimOptions options;
  options.isolated_collectives = true;
  options.remember_isolated_results = remember_results;
  return options;
}

}  // namespace

CandidateEvaluator::CandidateEvaluator(const RunConfig& base, std::string base_yaml,
                                       std::uint64_t memory_cap_bytes, bool share_collective_times)
    : base_(timing_one_step(base)),
      base_yaml_(std::move(base_yaml)),
      memory_cap_bytes_(memory_cap_bytes),
      share_collective_times_(share_collective_times),
      simulator_(
          std::make_unique<sim::Simulator>(base_.hardware.topology, isolated(share_collective_times))) {}

CandidateEvaluator::~CandidateEvaluator() = default;

std::uint64_t CandidateEvaluator::simulated_collectives() const {
  return simulator_->collectives_simulated();
}

const TrainingProgram& CandidateEvaluator::program_for(const RunConfig& config) {
  const std::string key = evaluator_program_key(config);
  if (config.training.weight_sharding == mtf::WeightShardingMode::none) {
    auto& program = shared_programs_[key];
    if (!program) program = std::make_unique<TrainingProgram>(config);
    return *program;
  }
  const auto it = std::find_if(sharded_programs_.begin(), sharded_programs_.end(),
                               [&](const auto& entry) { return entry.first == key; });
  if (it != sharded_programs_.end()) {
    sharded_programs_.splice(sharded_programs_.begin(), sharded_programs_, it);
  } else {
    if (sharded_programs_.size() == kShardedProgramsKept) sharded_programs_.pop_back();
    sharded_programs_.emplace_front(key, std::make_unique<TrainingProgram>(config));
  }
  return *sharded_programs_.front().second;
}

CandidateOutcome CandidateEvaluator::evaluate(const Candidate& candidate) {
  const auto started = Clock::now();
  std::optional<RunConfig> config;
  try {
    config.emplace(parse_run_config(candidate_config_yaml(base_yaml_, candidate), kCandidateFile));
  } catch (const InputError& error) {
    CandidateOutcome outcome;
    outcome.candidate = candidate;
    outcome.problem = without_location(error.what());
    outcome.wall_s = seconds_since(started);
    return outcome;
  }
  // Memory per core depends on the mesh and layout, the weight sharding and the pipeline only, not on the
  // mapping or the algorithms: a candidate over the cap is over it whatever they are, and needs neither
  // lowering again nor the algorithm choices that `auto` would simulate. The first time, it is measured with
  // the engine's default algorithms.
  const std::string structure =
      fmt::format("{}|{}|{}|{}x{}", config->mesh.shape_text(), config->mesh.layout_text(),
                  mtf::weight_sharding_modes().name_of(config->training.weight_sharding),
                  config->model.pipeline.stages, config->model.pipeline.microbatches);
  if (memory_by_structure_.count(structure) == 0) {
    Candidate plain = candidate;
    for (auto& [axis, name] : plain.algorithms) name = kDefaultAlgorithm;
    if (plain.key() != candidate.key()) evaluate(plain);
  }
  const auto known = memory_by_structure_.find(structure);
  if (known != memory_by_structure_.end() && known->second > memory_cap_bytes_) {
    CandidateOutcome outcome;
    outcome.candidate = candidate;
    outcome.status = CandidateOutcome::Status::over_cap;
    outcome.memory_per_core_bytes = known->second;
    outcome.wall_s = seconds_since(started);
    return outcome;
  }
  CandidateOutcome outcome = evaluate_config(timing_one_step(*config), candidate, started);
  if (outcome.legal()) memory_by_structure_[structure] = outcome.memory_per_core_bytes;
  return outcome;
}

CandidateOutcome CandidateEvaluator::evaluate_base() {
  Candidate own;
  own.mesh_shape = base_.mesh.shape_text();
  own.layout = base_.mesh.layout_text();
  own.mapping = base_.mesh.mapping.to_string();
  for (const auto& axis : base_.mesh.shape.shape().names()) {
    const auto it = base_.hardware.collective_algorithm_by_axis.find(axis);
    own.algorithms.emplace_back(
        axis, it == base_.hardware.collective_algorithm_by_axis.end() ? kDefaultAlgorithm : it->second);
  }
  return evaluate_config(base_, own, Clock::now());
}

CandidateOutcome CandidateEvaluator::evaluate_config(const RunConfig& config, Candidate candidate,
                                                     std::chrono::steady_clock::time_point started) {
  CandidateOutcome outcome;
  outcome.candidate = std::move(candidate);
  try {
    RunOptions options;
    options.share_collective_times = share_collective_times_;
    options.memory_limit_bytes = memory_cap_bytes_;
    const RunReport report = run_training(config, program_for(config), *simulator_, options);
    outcome.memory_per_core_bytes = report.memory.total_bytes;
    outcome.status = report.memory.total_bytes <= memory_cap_bytes_ ? CandidateOutcome::Status::fits
                                                                    : CandidateOutcome::Status::over_cap;
    if (outcome.status == CandidateOutcome::Status::fits) {
      outcome.step_time_s = report.timeline.step_time_s;
      outcome.mfu = report.mfu;
      outcome.exposed_communication_s = report.timeline.exposed_comm_s;
      outcome.collective_calls = static_cast<int>(report.collectives.size());
    }
  } catch (const InputError& error) {
    outcome.problem = without_location(error.what());
  }
  outcome.wall_s = seconds_since(started);
  return outcome;
}

}  // namespace tpusim::workloads
