// The pipelined LM's step on the simulated pod against GPipe's closed form in SPMD form: M+S-1 iterations,
// so with the microbatch's size fixed the step grows linearly in M (each microbatch adds one iteration
// forward and one backward, and a microbatch's share of the embedding and loss); the stage buffer crosses the
// stage axis 2(M+S-2) times (each shift forward and its gradient backward), each a collective permute of one
// microbatch's activations on a core, counted by hand. Each run_training creates the process's one
// Simulator, so runs go to child processes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <sstream>

#include "topologies/support/child_process.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

struct PipelineStep {
  double step_s = 0;
  int permutes = 0;                 // collective permutes over the stage axis
  std::uint64_t permute_bytes = 0;  // per core, each
  double bubble = 0;
};

// tiny-lm (d_model 32, length 16, f32 activations) timing only on ring-8, 2 sequences per microbatch.
PipelineStep pipelined_step(int stages, int microbatches, const std::string& mesh, const std::string& layout,
                            mtf::DType activations = mtf::DType::float32) {
  RunConfig config = load_preset("tiny-lm");
  config.training.numerics = NumericsMode::timing;
  config.training.steps = 1;
  config.model.layers = 4;
  config.model.batch = 2 * microbatches;
  config.model.activation_dtype = activations;
  config.model.pipeline = PipelineConfig{stages, microbatches, mtf::PipelineSchedule::gpipe};
  config.mesh.shape = mtf::MeshShape::parse(mesh);
  config.mesh.layout = mtf::LayoutRules::parse(layout);
  const std::string text =
      run_in_child([&] {
        const RunReport r = run_training(config);
        int permutes = 0;
        std::uint64_t bytes = 0;
        for (const auto& c : r.collectives) {
          if (c.record.reason != "shift") continue;
          ++permutes;
          bytes = c.record.bytes_per_core;
        }
        char buffer[128];
        std::snprintf(buffer, sizeof buffer, "%a %d %llu %a", r.timeline.step_time_s, permutes,
                      static_cast<unsigned long long>(bytes), r.pipeline->bubble_fraction);
        return std::string(buffer);
      }).output;
  PipelineStep out;
  std::istringstream in(text);
  std::string step, bubble;
  in >> step >> out.permutes >> out.permute_bytes >> bubble;
  out.step_s = std::strtod(step.c_str(), nullptr);
  out.bubble = std::strtod(bubble.c_str(), nullptr);
  return out;
}

}  // namespace

TEST_CASE("pipeline timing: GPipe's step grows by one iteration per microbatch, with 2(M+S-2) permutes") {
  for (const auto& [stages, mesh, layout] : std::vector<std::tuple<int, std::string, std::string>>{
           {2, "stage:2;batch:2;model:2", "stage:stage;batch:batch;d_ff:model;heads:model"},
           {4, "stage:4;batch:2", "stage:stage;batch:batch"}}) {
    INFO(stages << " stages on " << mesh);
    std::vector<PipelineStep> steps;
    for (int m = 1; m <= 4; ++m) steps.push_back(pipelined_step(stages, m, mesh, layout));
    for (int m = 1; m <= 4; ++m) {
      const PipelineStep& s = steps[m - 1];
      INFO("microbatches " << m);
      CHECK(s.permutes == 2 * (m + stages - 2));
      // One core's part of the buffer [stage, batch 2, length 16, d_model 32] in f32: one stage, the batch
      // split over the batch axis of 2.
      CHECK(s.permute_bytes == 1 * (2 / 2) * 16 * 32 * 4);
      CHECK(s.bubble == Approx(double(stages - 1) / (m + stages - 1)));
    }
    // Linear in M: every added microbatch adds the same time (to 0.1%: the overlap of collectives with
    // compute at the step's ends shifts a little with the sizes of the embedding and loss).
    const double slope = steps[1].step_s - steps[0].step_s;
    CHECK(slope > 0);
    for (int m = 2; m < 4; ++m) CHECK(steps[m].step_s - steps[m - 1].step_s == Approx(slope).epsilon(1e-3));
  }
}

TEST_CASE("pipeline timing: the stage buffer keeps the activations' type through the loop") {
  // bf16 activations: the buffer that crosses the stage axis is bf16 too, as the unpipelined layers' are;
  // the one-hot masks that place microbatches on the stages are float32 and must not widen it.
  const PipelineStep s =
      pipelined_step(4, 3, "stage:4;batch:2", "stage:stage;batch:batch", mtf::DType::bfloat16);
  CHECK(s.permutes == 2 * (3 + 4 - 2));
  CHECK(s.permute_bytes == 1 * (2 / 2) * 16 * 32 * 2);
}
