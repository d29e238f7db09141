// Every op the models build does useful work: autodiff builds gradients only for tensors between the
// variables and the loss (no d/d(one-hot) of the embedding lookup, no gradient of the MoE dispatch mask or of
// the data inputs), so no lowered op is dead and flop_accounting.hpp needs no "unused" share.
#include "mesh_tf/liveness.hpp"

#include <catch2/catch.hpp>

#include "mesh_tf/optimizer.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/models/model_builder.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

// The dead ops of a preset's model, trained by its optimizer, in `phase` (the step returns the loss).
std::vector<std::string> dead_ops(const std::string& preset, mtf::Phase phase) {
  const RunConfig config = load_preset(preset);
  mtf::Graph graph(1);
  const BuiltModel model = build_model(graph, config.model);
  const auto gradients = mtf::Optimizer::adafactor(0.01).minimize(graph, model.loss);
  REQUIRE(!gradients.empty());
  return mtf::dead_op_names(graph, {model.loss}, phase);
}

}  // namespace

TEST_CASE("no op of the backward phase of the tiny MLP is dead") {
  CHECK(dead_ops("tiny-mlp", mtf::Phase::backward) == std::vector<std::string>{});
  CHECK(dead_ops("tiny-mlp", mtf::Phase::forward) == std::vector<std::string>{});
  CHECK(dead_ops("tiny-mlp", mtf::Phase::update) == std::vector<std::string>{});
}

TEST_CASE("no op of the backward phase of the tiny LM is dead") {
  CHECK(dead_ops("tiny-lm", mtf::Phase::backward) == std::vector<std::string>{});
  CHECK(dead_ops("tiny-lm", mtf::Phase::forward) == std::vector<std::string>{});
  CHECK(dead_ops("tiny-lm", mtf::Phase::update) == std::vector<std::string>{});
}

TEST_CASE("no op of the tiny MoE Transformer or encoder-decoder is dead") {
  for (const std::string preset : {"tiny-moe", "tiny-translation"}) {
    INFO(preset);
    for (const auto phase : {mtf::Phase::forward, mtf::Phase::backward, mtf::Phase::update}) {
      CHECK(dead_ops(preset, phase) == std::vector<std::string>{});
    }
  }
}

TEST_CASE("no op of the tiny ResNet or U-Net is dead") {
  for (const std::string preset : {"tiny-resnet", "tiny-unet"}) {
    INFO(preset);
    for (const auto phase : {mtf::Phase::forward, mtf::Phase::backward, mtf::Phase::update}) {
      CHECK(dead_ops(preset, phase) == std::vector<std::string>{});
    }
  }
}
