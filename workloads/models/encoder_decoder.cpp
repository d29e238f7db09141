// The encoder-decoder Transformer of the Mesh-TensorFlow paper (WMT'14 En-Fr): one embedding shared by both
// stacks (a joint vocabulary), `encoder_layers` blocks of self-attention and feed-forward, `decoder_layers`
// blocks of causal self-attention, attention over the encoder output and feed-forward, then a separate
// softmax. Trained on a synthetic copy task: the decoder reproduces the source, teacher-forced.
#include <fmt/format.h>

#include "workloads/models/model_builder.hpp"
#include "workloads/models/transformer_layers.hpp"

namespace tpusim::workloads {

using mtf::Shape;
using mtf::Tensor;

BuiltModel build_encoder_decoder(mtf::Graph& graph, const ModelConfig& model) {
  const TransformerDims d(model);
  const Tensor source = graph.input("source_ids", Shape{d.batch, d.length});
  const Tensor decoder_in = graph.input("decoder_input_ids", Shape{d.batch, d.length});
  const Tensor targets = graph.input("target_ids", Shape{d.batch, d.length});
  const Tensor mask = graph.input("causal_mask", Shape{d.length, d.memory_length});
  const Tensor full_mask = full_causal_mask(mask, d);

  const Tensor embedding = weight(graph, "embedding", Shape{d.vocab, d.d_model}, d.d_model.size);
  Tensor encoded = dropout(embed(graph, embedding, source, d, "encoder"), d, "encoder/embedding_dropout");
  for (int layer = 0; layer < model.layers; ++layer) {
    const mtf::CheckpointScope checkpoint(graph);
    const std::string scope = fmt::format("encoder/layer_{}", layer);
    const Tensor normed = layer_norm(graph, encoded, d, scope + "/self_attention");
    const Tensor attended = attention(graph, normed, normed, Tensor(), d, scope + "/self_attention");
    encoded = mtf::add(encoded, dropout(attended, d, scope + "/self_attention/dropout"));
    const Tensor fed = feed_forward(graph, layer_norm(graph, encoded, d, scope + "/ffn"), d, scope + "/ffn");
    encoded = mtf::add(encoded, dropout(fed, d, scope + "/ffn/dropout"));
  }
  encoded = layer_norm(graph, encoded, d, "encoder/final");

  Tensor x = dropout(embed(graph, embedding, decoder_in, d, "decoder"), d, "decoder/embedding_dropout");
  for (int layer = 0; layer < model.decoder_layers; ++layer) {
    const mtf::CheckpointScope checkpoint(graph);
    const std::string scope = fmt::format("decoder/layer_{}", layer);
    const Tensor normed = layer_norm(graph, x, d, scope + "/self_attention");
    x = mtf::add(x, dropout(attention(graph, normed, normed, full_mask, d, scope + "/self_attention"), d,
                            scope + "/self_attention/dropout"));
    x = mtf::add(x, dropout(attention(graph, layer_norm(graph, x, d, scope + "/cross_attention"), encoded,
                                      Tensor(), d, scope + "/cross_attention"),
                            d, scope + "/cross_attention/dropout"));
    const Tensor fed = feed_forward(graph, layer_norm(graph, x, d, scope + "/ffn"), d, scope + "/ffn");
    x = mtf::add(x, dropout(fed, d, scope + "/ffn/dropout"));
  }
  x = layer_norm(graph, x, d, "decoder/final");
  const Tensor loss = softmax_loss(graph, x, targets, d, "output");
  return {loss,
          {{source, InputRole::source_ids},
           {decoder_in, InputRole::decoder_in_ids},
           {targets, InputRole::source_ids},
           {mask, InputRole::causal_mask}}};
}

}  // namespace tpusim::workloads
