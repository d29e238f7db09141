// The decoder-only language model of the Mesh-TensorFlow paper (one-billion-word): token embedding, `layers`
// blocks of causal self-attention and feed-forward (pre-layer-norm residuals), a final layer norm and a
// separate softmax matrix. Trained on next-token prediction.
#include <fmt/format.h>

#include "workloads/models/model_builder.hpp"
#include "workloads/models/pipelined_lm.hpp"
#include "workloads/models/transformer_layers.hpp"

namespace tpusim::workloads {

using mtf::Shape;
using mtf::Tensor;

BuiltModel build_decoder_only_lm(mtf::Graph& graph, const ModelConfig& model,
                                 const FeedForwardBlock& feed_forward_block) {
  TransformerDims d(model);
  const Tensor ids = graph.input("token_ids", Shape{d.batch, d.length});
  const Tensor targets = graph.input("target_ids", Shape{d.batch, d.length});
  const DecoderInputs attention_inputs = decoder_inputs(graph, d);
  const Tensor& full_mask = attention_inputs.full_mask;

  const Tensor embedding = weight(graph, "embedding", Shape{d.vocab, d.d_model}, d.d_model.size);
  Tensor x = dropout(embed(graph, embedding, ids, d, "decoder"), d, "decoder/embedding_dropout");
  for (int layer = 0; layer < model.layers; ++layer) {
    const mtf::CheckpointScope checkpoint(graph);
    const std::string scope = fmt::format("layer_{}", layer);
    const Tensor normed = layer_norm(graph, x, d, scope + "/self_attention");
    x = mtf::add(x, dropout(attention(graph, normed, normed, full_mask, d, scope + "/self_attention"), d,
                            scope + "/self_attention/dropout"));
    x = mtf::add(x, dropout(feed_forward_block(layer_norm(graph, x, d, scope + "/ffn"), d, scope + "/ffn"), d,
                            scope + "/ffn/dropout"),
                 scope + "/layer_output");
  }
  x = layer_norm(graph, x, d, "final");
  const Tensor loss = softmax_loss(graph, x, targets, d, "output");
  std::vector<ModelInput> inputs = {{ids, InputRole::token_ids}, {targets, InputRole::next_token_ids}};
  inputs.insert(inputs.end(), attention_inputs.inputs.begin(), attention_inputs.inputs.end());
  return {loss, inputs};
}

BuiltModel build_transformer_lm(mtf::Graph& graph, const ModelConfig& model) {
  const FeedForwardBlock dense = [&](const Tensor& x, const TransformerDims& d, const std::string& scope) {
    return feed_forward(graph, x, d, scope);
  };
  if (model.pipeline.on()) return build_pipelined_decoder_only_lm(graph, model, dense);
  return build_decoder_only_lm(graph, model, dense);
}

}  // namespace tpusim::workloads
