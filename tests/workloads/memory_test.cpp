// Memory per core of small models against values computed by hand from the layout (fp32, 4 bytes/element).
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/optimizer.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/models/model_builder.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

// One-layer LM, d_model 8, d_ff 16, heads 2, d_kv 4, vocab 16 on mesh batch:2;model:2, rules batch:batch,
// vocab/d_ff/heads:model. Variables and their elements per core:
//   embedding [vocab/2, 8] 64, positional embedding [length 4, 8] 32, q k v [8, heads/2, 4] 32 each,
//   o [heads/2, 4, 8] 32, ffn in [8, d_ff/2] 64, out [d_ff/2, 8] 64, softmax [8, vocab/2] 64, three
//   layer-norm scales [8] 8 each = 64 + 32 + 96 + 32 + 128 + 64 + 24 = 440 elements = 1760 bytes.
const char* kTinyLm =
    "hardware: {topology: \"ring:4\"}\n"
    "mesh: {shape: \"batch:2;model:2\"}\n"
    "model: {kind: transformer_lm, layers: 1, d_model: 8, d_ff: 16, heads: 2, d_kv: 4, vocab: 16, batch: 4,"
    " length: 4, activation_dtype: f32}\n";

MemoryReport memory_of(const std::string& yaml, mtf::Optimizer optimizer) {
  const RunConfig config = parse_run_config(yaml, "test.yaml");
  mtf::Graph graph(1);
  const BuiltModel model = build_model(graph, config.model);
  const auto gradients = optimizer.minimize(graph, model.loss);
  mtf::ExecutionOptions options;
  options.numerics = false;
  mtf::Executor executor(graph, config.mesh.shape, config.mesh.layout, nullptr, options);
  return memory_per_core(executor.counters(), gradients, executor.live_memory(), 1000000);
}

}  // namespace

TEST_CASE("parameter and gradient memory per core of a tiny LM match the hand count") {
  const MemoryReport memory = memory_of(kTinyLm, mtf::Optimizer::sgd(0.1));
  CHECK(memory.parameter_bytes == 1760);
  CHECK(memory.gradient_bytes == 1760);  // fp32 activations give fp32 gradients, laid out like the variables
  CHECK(memory.optimizer_state_bytes == 0);
  CHECK(memory.sum_bytes == memory.parameter_bytes + memory.gradient_bytes + memory.activation_bytes);
  // The live peak holds the parameters and at most all the rest.
  CHECK(memory.total_bytes >= memory.parameter_bytes);
  CHECK(memory.total_bytes <= memory.sum_bytes + memory.parameter_bytes);
  CHECK(memory.fits());
}

TEST_CASE("Adam keeps two moments per parameter and a step counter per variable") {
  const MemoryReport memory = memory_of(kTinyLm, mtf::Optimizer::adam(0.1));
  // m and v: 2 * 1760 bytes; a scalar step per variable: 12 variables * 4 bytes.
  CHECK(memory.optimizer_state_bytes == 2 * 1760 + 12 * 4);
}

TEST_CASE("momentum and LARS keep one accumulator per parameter, LAMB two moments and a step counter") {
  // One slot laid out like its variable: 1760 bytes. LARS's norms and trust ratios are step temporaries.
  CHECK(memory_of(kTinyLm, mtf::Optimizer::momentum(0.1)).optimizer_state_bytes == 1760);
  CHECK(memory_of(kTinyLm, mtf::Optimizer::lars(0.1)).optimizer_state_bytes == 1760);
  // m and v: 2 * 1760 bytes; a scalar step per variable (the bias correction): 12 variables * 4 bytes.
  CHECK(memory_of(kTinyLm, mtf::Optimizer::lamb(0.1)).optimizer_state_bytes == 2 * 1760 + 12 * 4);
}

TEST_CASE("Adafactor keeps factored second moments over the last two dims") {
  const MemoryReport memory = memory_of(kTinyLm, mtf::Optimizer::adafactor(0.1));
  // Elements per core of the row (shape without the last dim) and column (without the one before) moments:
  //   embedding [vocab/2, 8]: 8 + 8;  q, k, v [8, heads/2, 4]: [8, 1] 8 + [8, 4] 32, three times: 120
  //   o [heads/2, 4, 8]: [1, 4] 4 + [1, 8] 8;  ffn in [8, 8]: 8 + 8;  out [8, 8]: 8 + 8;  softmax [8, 8]: 8 +
  //   8 positional embedding [4, 8]: 4 + 8;  layer-norm scales [8] are not factored: 8 each, 24. Total 16 +
  //   120 + 12 + 16 + 16 + 16 + 12 + 24 = 232.
  CHECK(memory.optimizer_state_bytes == 232 * 4);
}

TEST_CASE("activations kept for the backward pass of a tiny MLP match the hand count") {
  // One block, batch 8 on batch:2, d_model 8, d_ff 16 on model:2; per core the backward pass reads
  //   features [4, 8] (the einsum's gradient for w_in), hidden after relu [4, 8] (the gradient for w_out,
  //   and relu's step, which reads relu's output as TensorFlow's ReluGrad does), y - x [4, 8] (the square's
  //   gradient) = 3 * 32 elements = 384 bytes. The scalar seed of the backward pass (d loss / d loss = 1) is
  //   a backward-phase constant, not a kept activation.
  const MemoryReport memory = memory_of(
      "hardware: {topology: \"ring:4\"}\nmesh: {shape: \"batch:2;model:2\"}\n"
      "model: {kind: mlp, layers: 1, d_model: 8, d_ff: 16, batch: 8, activation_dtype: f32}\n",
      mtf::Optimizer::sgd(0.1));
  CHECK(memory.parameter_bytes == (8 * 8 + 8 * 8) * 4);
  CHECK(memory.activation_bytes == 384);
}

TEST_CASE("rematerialization by layers holds each MLP layer's input, not its hidden activations") {
  // One core, SGD, 1024 examples, d_model 16, d_ff 64: a layer reads its input x [1024, 16] (64 KiB) and
  // keeps relu's output [1024, 64] (256 KiB) for its backward pass; its weights are 4 KiB each. The peak is
  // where the backward pass begins. Held as assigned, every layer's input and hidden activation are live
  // there; by layers, every input, and only the last layer's hidden activation, computed again for its
  // backward pass there: (layers - 1) hidden activations fewer, and one fewer per added layer.
  const auto peak = [](int layers, const char* policy) {
    const std::string yaml = fmt::format(
        "hardware: {{topology: \"ring:1\", rematerialization: {}}}\n"
        "mesh: {{shape: \"batch:1\"}}\n"
        "model: {{kind: mlp, layers: {}, d_model: 16, d_ff: 64, batch: 1024, activation_dtype: f32}}\n",
        policy, layers);
    const RunConfig config = parse_run_config(yaml, "test.yaml");
    mtf::Graph graph(1);
    const BuiltModel model = build_model(graph, config.model);
    const auto gradients = mtf::Optimizer::sgd(0.1).minimize(graph, model.loss);
    mtf::ExecutionOptions options;
    options.numerics = false;
    options.rematerialization = config.hardware.rematerialization;
    mtf::Executor executor(graph, config.mesh.shape, config.mesh.layout, nullptr, options);
    return executor.live_memory();
  };
  const std::int64_t hidden_bytes = 1024 * 64 * 4;
  for (const int layers : {3, 4, 6}) {
    INFO(layers << " layers");
    const auto none = peak(layers, "none"), none_next = peak(layers + 1, "none");
    const auto by_layers = peak(layers, "layers"), by_layers_next = peak(layers + 1, "layers");
    CHECK(by_layers.rematerialization.values == layers);  // one hidden activation per layer
    // The two peaks are a few ops apart: scalars (the loss and its gradient, 4 bytes each) may be live at one
    // and not at the other.
    const auto fewer = static_cast<std::int64_t>(none.peak_bytes - by_layers.peak_bytes);
    CHECK(fewer >= (layers - 1) * hidden_bytes);
    CHECK(fewer <= (layers - 1) * hidden_bytes + 16);
    CHECK(static_cast<std::int64_t>(none_next.peak_bytes - none.peak_bytes) -
              static_cast<std::int64_t>(by_layers_next.peak_bytes - by_layers.peak_bytes) ==
          hidden_bytes);
  }
}
