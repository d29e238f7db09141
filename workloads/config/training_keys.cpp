// The rows of the `training:` section: the optimizer, numerics, steps and where results go.
#include <fmt/format.h>

#include "topologies/support/units.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/models/model_formulas.hpp"
#include "workloads/models/model_kinds.hpp"

namespace tpusim::workloads {

namespace {

// What the pipelined model (models/pipelined_lm.hpp) needs of the model, at the pipeline key that turns it
// on.
void check_pipelined_model(const ConfigNode& value, const ConfigReading& r) {
  const ModelConfig& model = r.config.model;
  if (!model_kind(model.kind).pipelines) {
    std::vector<std::string> kinds;
    for (const auto& kind : model_kinds())
      if (kind.pipelines) kinds.push_back(kind.name);
    value.fail(fmt::format("a {} cannot be pipelined; the kinds that can are {}", to_string(model.kind),
                           join(kinds)));
  }
  if (model.dropout != 0)
    value.fail(
        fmt::format("a pipelined model builds no dropout (model.dropout is {}): its masks are keyed "
                    "by the element, and a stage's layer runs on many microbatches",
                    model.dropout));
}

}  // namespace

std::vector<ConfigKey> training_keys() {
  return {
      ConfigKey("training.optimizer", "one of " + join(optimizer_kinds().names()),
                "The optimizer of each step; its slot variables count in memory per core. sgd, adam and "
                "adafactor are Mesh-TensorFlow's; momentum (0.9, not Nesterov), lars (eta 0.001, weight decay "
                "1e-4, momentum 0.9) and lamb (beta1 0.9, beta2 0.999, epsilon 1e-6, weight decay 0.01) are "
                "the MLPerf TPU submissions' (mesh_tf/mlperf_optimizers.hpp), with their sources' defaults; "
                "lars and lamb leave rank-1 variables (norm scales and offsets, biases) out of weight decay and "
                "the trust ratio.")
          .defaults_to("adafactor")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            r.config.training.optimizer = value.choice(optimizer_kinds());
          })
          .reports([](const RunConfig& c) { return to_string(c.training.optimizer); }),
      ConfigKey("training.learning_rate", "number", "The optimizer's learning rate.")
          .ranged("1e-12 to 1000")
          .defaults_to("0.01")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            // Sanity limits, far outside any schedule's: they catch a typo such as 1e-300 or 1e300.
            r.config.training.learning_rate = value.number();
            if (!(r.config.training.learning_rate >= 1e-12 && r.config.training.learning_rate <= 1000))
              value.fail("is not a plausible learning rate: expected 1e-12 to 1000");
          })
          .reports([](const RunConfig& c) { return c.training.learning_rate; }),
      ConfigKey("training.numerics", "one of " + join(numerics_modes().names()),
                "timing simulates with shapes only; full also computes real fp32 values on every core, "
                "so the loss is reported (small models only: this machine does the work of every core).")
          .ranged("full: " + full_numerics_limits())
          .defaults_to("timing")
          .needs({"model.kind", "training.optimizer", "training.steps"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            r.config.training.numerics = value.choice(numerics_modes());
            if (r.config.training.numerics != NumericsMode::full) return;
            const NumericsCost cost = full_numerics_cost(r.config.model, r.config.training);
            if (!cost.fits()) value.fail(cost.problem());
          })
          .reports([](const RunConfig& c) { return to_string(c.training.numerics); }),
      ConfigKey("training.weight_sharding", "one of " + join(mtf::weight_sharding_modes().names()),
                "Weights sharded over the data-parallel axis (the mesh axis that splits batch; "
                "mesh_tf/weight_sharding.hpp). update: weight-update sharding (Xu et al. 2020, arXiv "
                "2004.13336; Google's MLPerf TPU submissions), each replicated variable's gradient "
                "reduce-scattered, its update and optimizer slots computed on 1/N of it per core, and the "
                "new weights all-gathered. full: fully sharded weights (ZeRO-3, arXiv 1910.02054; PyTorch FSDP; "
                "GSPMD's 2D sharding), each variable stored as 1/N per core with its gradient and slots, "
                "all-gathered before its forward readers and again before its backward readers, its "
                "gradient reduce-scattered. Each variable is sharded along its largest dim no layout rule "
                "splits and the axis divides; one with none stays replicated. none: neither.")
          .defaults_to("none")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            r.config.training.weight_sharding = value.choice(mtf::weight_sharding_modes());
          })
          .reports([](const RunConfig& c) {
            return mtf::weight_sharding_modes().name_of(c.training.weight_sharding);
          }),
      ConfigKey("training.pipeline_stages", "whole number",
                "Pipeline parallelism (GSPMD's, Xu et al. 2021, arXiv 2105.04663): the transformer_lm's "
                "layers cut into this many stages of equal size, run along the mesh axis the layout rule "
                "stage:<mesh axis> names, which must divide it; the activations pass from stage to stage as "
                "collective permutes over that axis (over DCN when it spans slices). 1: no pipeline.")
          .ranged("1 to model.layers, dividing it")
          .defaults_to("1")
          .needs({"model.kind"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            const auto stages = value.positive_integer();
            if (stages == 1) return;
            check_pipelined_model(value, r);
            if (stages > r.config.model.layers || r.config.model.layers % stages != 0)
              value.fail(
                  fmt::format("{} stages do not divide the {} layers evenly", stages, r.config.model.layers));
            r.config.model.pipeline.stages = static_cast<int>(stages);
          })
          .reports([](const RunConfig& c) { return c.model.pipeline.stages; }),
      ConfigKey("training.microbatches", "whole number",
                "The batch cut into this many microbatches of equal size, which flow through the pipeline "
                "stages one after the other (GPipe, Huang et al. 2019, arXiv 1811.06965); the weights update "
                "once per step from all of them. 1: the whole batch at once.")
          .ranged("1 to model.batch, dividing it")
          .defaults_to("1")
          .needs({"model.kind"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            const auto microbatches = value.positive_integer();
            if (microbatches == 1) return;
            check_pipelined_model(value, r);
            if (microbatches > r.config.model.batch || r.config.model.batch % microbatches != 0)
              value.fail(fmt::format("{} microbatches do not divide the batch of {} evenly", microbatches,
                                     r.config.model.batch));
            r.config.model.pipeline.microbatches = static_cast<int>(microbatches);
          })
          .reports([](const RunConfig& c) { return c.model.pipeline.microbatches; }),
      ConfigKey("training.pipeline_schedule", "one of " + join(mtf::pipeline_schedules().names()),
                "The order each stage runs its microbatches' forward and backward passes in "
                "(mesh_tf/pipeline_schedule.hpp). gpipe: all forwards, then all backwards, every stage "
                "keeping all microbatches' activations; the step is the engine's own. 1f1b: PipeDream-flush "
                "(Narayanan et al. 2021, arXiv 2104.04473), one forward then one backward once the pipeline "
                "is full, stage s keeping min(microbatches, stages - s); the report gives its step time and "
                "activation memory from the engine's per-stage figures.")
          .defaults_to("gpipe")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            r.config.model.pipeline.schedule = value.choice(mtf::pipeline_schedules());
          })
          .reports([](const RunConfig& c) {
            return mtf::pipeline_schedules().name_of(c.model.pipeline.schedule);
          }),
      ConfigKey("training.steps", "whole number", "Training steps to simulate (tpusim run --steps overrides it).")
          .ranged(fmt::format("1 to {}", kMaxSteps))
          .defaults_to("1")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            const auto steps = value.positive_integer();
            if (steps > kMaxSteps)
              value.fail(fmt::format("{} steps is more than the {} a run may have", steps, kMaxSteps));
            r.config.training.steps = static_cast<int>(steps);
          })
          .reports([](const RunConfig& c) { return c.training.steps; }),
      ConfigKey("training.seed", "whole number",
                "Seeds the initial weights and the synthetic data: the same seed gives the same run.")
          .ranged("0 or more")
          .defaults_to("1")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            const auto seed = value.integer();
            if (seed < 0) value.fail("must not be negative");
            r.config.training.seed = static_cast<std::uint64_t>(seed);
          })
          .reports([](const RunConfig& c) { return c.training.seed; }),
      ConfigKey("training.output", "folder path",
                "The results folder: summary.json, collectives.csv and trace.json (tpusim run --output "
                "overrides it).")
          .computed("results/<name>",
                    [](ConfigReading& r) { r.config.training.output_dir = "results/" + r.config.name; })
          .needs({"name"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            r.config.training.output_dir = value.scalar();
            if (r.config.training.output_dir.empty()) value.fail("must not be empty");
          })
          .reports([](const RunConfig& c) { return c.training.output_dir; }, "output"),
  };
}

}  // namespace tpusim::workloads
