// A multilayer perceptron, the two-layer example of the Mesh-TensorFlow paper repeated `layers` times:
// x <- relu(x . in[d_model, d_ff]) . out[d_ff, d_model]. It learns to reproduce its input (an autoencoder on
// seeded normal features), so its loss, the mean squared error, can fall on synthetic data.
#include <fmt/format.h>

#include "workloads/models/model_builder.hpp"
#include "workloads/models/transformer_layers.hpp"

namespace tpusim::workloads {

using mtf::Shape;
using mtf::Tensor;

BuiltModel build_mlp(mtf::Graph& graph, const ModelConfig& model) {
  const mtf::Dimension batch("batch", model.batch), d_model("d_model", model.d_model),
      d_ff("d_ff", model.d_ff);
  const mtf::DType activations = model.activation_dtype;
  const Tensor features = graph.input("features", Shape{batch, d_model});
  Tensor x = activations == mtf::DType::float32 ? features : mtf::cast(features, activations);
  const Tensor target = x;
  for (int layer = 0; layer < model.layers; ++layer) {
    const mtf::CheckpointScope checkpoint(graph);
    const std::string scope = fmt::format("layer_{}", layer);
    const Tensor w_in = weight(graph, scope + "/in", Shape{d_model, d_ff}, d_model.size);
    const Tensor w_out = weight(graph, scope + "/out", Shape{d_ff, d_model}, d_ff.size);
    const Tensor hidden = mtf::relu(mtf::einsum({x, w_in}, Shape{batch, d_ff}, scope + "/hidden"));
    x = mtf::einsum({hidden, w_out}, Shape{batch, d_model}, scope + "/output");
  }
  const Tensor loss = mtf::reduce_mean(mtf::square(mtf::sub(x, target)), Shape{}, "loss");
  return {loss, {{features, InputRole::features}}};
}

}  // namespace tpusim::workloads
