// The pipelined LM (workloads/models/pipelined_lm.hpp) computes the unpipelined LM: with the same weights
// (each unpipelined layer's variables copied into its stage's slice of the stacked ones) and the same data,
// both give the same loss and, after SGD steps, the same weights. The reference is the unpipelined model on
// one of the meshes; the engine runs without a simulator (collectives move data directly), which changes no
// value. Chosen cases (the stage axis split with batch and d_ff split too, several stages per core,
// microbatches without stages) and random ones.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "mesh_tf/execution.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/models/pipelined_lm.hpp"
#include "workloads/synthetic_data.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

struct PipelineCase {
  int layers, stages, microbatches;
  std::string mesh, layout;  // the pipelined run's; the unpipelined one runs on a single processor
};

RunConfig pipeline_case_config(const PipelineCase& c, bool pipelined, OptimizerKind optimizer) {
  RunConfig config = load_preset("tiny-lm");  // d_model 32, d_ff 64, 4 heads, vocab 64, batch 8, length 16
  config.model.layers = c.layers;
  config.training.optimizer = optimizer;
  config.training.learning_rate = 0.05;
  config.mesh.shape = mtf::MeshShape::parse(pipelined ? c.mesh : "all:1");
  config.mesh.layout = mtf::LayoutRules::parse(pipelined ? c.layout : "");
  if (pipelined)
    config.model.pipeline = PipelineConfig{c.stages, c.microbatches, mtf::PipelineSchedule::gpipe};
  return config;
}

struct PipelineRun {
  std::unique_ptr<TrainingProgram> program;
  std::unique_ptr<mtf::Executor> executor;
};

PipelineRun start_pipeline_run(const RunConfig& config) {
  PipelineRun run;
  run.program = std::make_unique<TrainingProgram>(config);
  mtf::ExecutionOptions options;
  options.numerics = true;
  run.executor = std::make_unique<mtf::Executor>(run.program->graph, config.mesh.shape, config.mesh.layout,
                                                 nullptr, options);
  for (const auto& input : run.program->model.inputs)
    run.executor->feed(input.tensor, synthetic_values(config.model, input.role, config.training.seed, 0));
  return run;
}

// The model's weights, not the optimizer's slots (which start at zero in both runs).
std::vector<mtf::Tensor> model_weights(const TrainingProgram& program) {
  std::vector<mtf::Tensor> out;
  for (const auto& v : program.graph.variables())
    if (program.graph.producer(v).phase == mtf::Phase::forward) out.push_back(v);
  return out;
}

// The stacked variable's values gathered from (or scattered to) the unpipelined layers' variables: stage s
// of a [stage, ...] variable is one unpipelined variable's values, in order.
void copy_weights(const PipelineRun& plain, PipelineRun& piped, const PipelineCase& c) {
  std::map<std::string, std::vector<float>> stacked;
  for (const auto& v : model_weights(*plain.program)) {
    const std::vector<float> values = plain.executor->variable_value(v);
    if (v.name().rfind("layer_", 0) != 0) {
      piped.executor->set_variable_value(piped.program->graph.find(v.name()), values);
      continue;
    }
    const StageVariable target = pipelined_variable_for(v.name(), c.layers, c.stages);
    auto& all = stacked[target.name];
    all.resize(values.size() * c.stages);
    std::copy(values.begin(), values.end(), all.begin() + std::ptrdiff_t(target.stage * values.size()));
  }
  for (const auto& [name, values] : stacked)
    piped.executor->set_variable_value(piped.program->graph.find(name), values);
}

// Largest |a - b| over the weights after the steps, relative to the largest weight.
double weight_difference(const PipelineRun& plain, const PipelineRun& piped, const PipelineCase& c) {
  double diff = 0, scale = 0;
  for (const auto& v : model_weights(*plain.program)) {
    const std::vector<float> a = plain.executor->variable_value(v);
    std::vector<float> b;
    std::size_t offset = 0;
    if (v.name().rfind("layer_", 0) != 0) {
      b = piped.executor->variable_value(piped.program->graph.find(v.name()));
    } else {
      const StageVariable target = pipelined_variable_for(v.name(), c.layers, c.stages);
      b = piped.executor->variable_value(piped.program->graph.find(target.name));
      offset = target.stage * a.size();
    }
    REQUIRE(b.size() >= offset + a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      diff = std::max(diff, std::abs(double(a[i]) - double(b[offset + i])));
      scale = std::max(scale, std::abs(double(a[i])));
    }
  }
  return diff / scale;
}

// fp32 throughout (tiny-lm's activations are f32): the pipelined run adds the same products in another order
// (each weight's gradient summed per microbatch and then over the microbatches, the loss's mean over
// [microbatches, batch/M, length] instead of [batch, length]). Reassociating a sum of n fp32 terms moves it
// by at most about n * 2^-24 of the sum of magnitudes; n is at most the 128 tokens here (8 sequences of 16),
// so about 1e-5 relative, and three SGD steps compound it little. Adam divides by the gradient's own size, so
// it is compared on the loss only.
constexpr double kPipelineRelativeTolerance = 2e-5;

void check_pipeline_matches(const PipelineCase& c) {
  INFO("layers " << c.layers << ", stages " << c.stages << ", microbatches " << c.microbatches << ", mesh "
                 << c.mesh << ", layout " << c.layout);
  for (const auto optimizer : {OptimizerKind::sgd, OptimizerKind::adam, OptimizerKind::adafactor}) {
    PipelineRun plain = start_pipeline_run(pipeline_case_config(c, false, optimizer));
    PipelineRun piped = start_pipeline_run(pipeline_case_config(c, true, optimizer));
    copy_weights(plain, piped, c);
    for (int step = 0; step < 3; ++step) {
      const double plain_loss = plain.executor->run({plain.program->model.loss}).loss;
      const double piped_loss = piped.executor->run({piped.program->model.loss}).loss;
      INFO("step " << step);
      CHECK(std::abs(piped_loss - plain_loss) <= kPipelineRelativeTolerance * std::abs(plain_loss));
    }
    if (optimizer == OptimizerKind::sgd)
      CHECK(weight_difference(plain, piped, c) <= kPipelineRelativeTolerance);
  }
}

}  // namespace

TEST_CASE("pipeline: the stacked variable of an unpipelined layer, by hand") {
  CHECK(pipelined_variable_for("layer_5/ffn/in", 8, 4).name == "stage_layer_1/ffn/in");
  CHECK(pipelined_variable_for("layer_5/ffn/in", 8, 4).stage == 2);
  CHECK(pipelined_variable_for("layer_0/self_attention/q", 4, 1).name == "stage_layer_0/self_attention/q");
  CHECK(pipelined_variable_for("layer_3/ffn/layer_norm_scale", 4, 4).stage == 3);
}

TEST_CASE("pipeline: chosen cases train as the unpipelined LM") {
  // Two stages over their own axis, batch and d_ff split too (8 processors).
  check_pipeline_matches(
      {2, 2, 4, "stage:2;batch:2;model:2", "stage:stage;batch:batch;d_ff:model;heads:model"});
  // Four stages of one layer each over four processors, vocab split over the other axis.
  check_pipeline_matches({4, 4, 2, "stage:4;model:2", "stage:stage;vocab:model"});
  // Two stages per processor (the stage axis smaller than the stages), one microbatch.
  check_pipeline_matches({4, 4, 1, "stage:2", "stage:stage"});
  // Microbatches alone (gradient accumulation), no stages.
  check_pipeline_matches({2, 1, 4, "batch:2", "batch:batch"});
  // Stages left unsplit: every processor runs every stage.
  check_pipeline_matches({2, 2, 2, "batch:2", "batch:batch"});
}

TEST_CASE("pipeline: random cases train as the unpipelined LM") {
  std::mt19937 rng(4);
  const std::vector<std::pair<std::string, std::string>> meshes = {
      {"stage:2;batch:2", "stage:stage;batch:batch"},
      {"stage:2;model:2", "stage:stage;d_ff:model;heads:model"},
      {"stage:4", "stage:stage"},
      {"batch:2;stage:2;model:2", "stage:stage;batch:batch;vocab:model;d_ff:model"}};
  for (int trial = 0; trial < 6; ++trial) {
    const auto& mesh = meshes[rng() % meshes.size()];
    const int axis = mesh.first.find("stage:4") != std::string::npos ? 4 : 2;
    const int layers = axis == 4 ? 4 : std::vector<int>{2, 4}[rng() % 2];
    // The stage axis divides the stages, which divide the layers.
    const int stages = layers == 2 ? 2 : std::vector<int>{axis, 4}[rng() % 2];
    const int microbatches = std::vector<int>{1, 2, 4}[rng() % 3];
    // Each microbatch's batch (8/M) must split over the batch axis.
    if (mesh.first.find("batch:2") != std::string::npos && 8 / microbatches < 2) continue;
    check_pipeline_matches({layers, stages, microbatches, mesh.first, mesh.second});
  }
}
