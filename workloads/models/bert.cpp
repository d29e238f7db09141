// BERT pre-training (Devlin et al. 2018, arXiv 1810.04805) as google-research/bert builds it (modeling.py's
// BertModel, run_pretraining.py's two heads) and MLPerf v0.7 trains BERT-Large: an encoder of `layers`
// post-layer-norm blocks (x = LN(x + attention(x)), x = LN(x + ffn(x)); attention without a mask, since the
// synthetic sequences have no padding; GELU feed-forward; biases on every dense layer) over the sum of token,
// token-type and positional embeddings. Two losses, added: the masked LM's, at `predictions` positions per
// sequence, with logits against the token embedding (tied) plus an output bias; and next-sentence
// prediction's, from the pooled first token. model.dropout (MLPerf trains with 0.1) drops out the attention
// weights, each sublayer's output before its residual add and the embeddings (transformer_layers.hpp).
#include <fmt/format.h>

#include "workloads/models/bert_layers.hpp"
#include "workloads/models/model_builder.hpp"
#include "workloads/models/transformer_layers.hpp"

namespace tpusim::workloads {

using mtf::Shape;
using mtf::Tensor;

namespace {

// Mean cross entropy of logits against integer labels along `classes`.
Tensor mean_cross_entropy(const Tensor& logits, const Tensor& labels, const mtf::Dimension& classes,
                          const std::string& scope) {
  const Tensor hot = mtf::one_hot(labels, classes, 1, 0, scope + "/labels");
  const Tensor per_example = mtf::softmax_cross_entropy(logits, hot, classes.name, scope + "/cross_entropy");
  return mtf::reduce_mean(per_example, Shape{}, scope + "/loss");
}

// run_pretraining.py's get_masked_lm_output. Its gather_indexes picks the hidden states at the masked
// positions with tf.gather on the flattened batch; here the pick is a product with one_hot(positions, length)
// [batch, predictions, length], which is how the engine gathers (mtf::gather is the same product along
// vocab). It costs 2 b P l d FLOPs forward and as much for x's gradient, 0.015% of BERT-Large's step, and
// lays out like any einsum: a split length leaves a partial sum to allreduce. Every position is predicted
// (masked_lm_weights all 1): the synthetic data always fills `predictions`.
Tensor masked_lm_loss(mtf::Graph& graph, const Tensor& x, const Tensor& embedding, const Tensor& positions,
                      const Tensor& labels, const mtf::Dimension& predictions, const TransformerDims& d) {
  const Tensor pick = mtf::one_hot(positions, d.length, 1, 0, "masked_lm/position_one_hot");
  const Tensor picked = mtf::einsum({x, pick}, Shape{d.batch, predictions, d.d_model}, "masked_lm/gather");
  const Tensor transformed =
      bert_layer_norm(graph, mtf::gelu(dense(graph, picked, d.d_model, d.d_model, "masked_lm/transform")),
                      d.d_model, "masked_lm/transform");
  const Tensor logits = mtf::add(
      mtf::einsum({transformed, embedding}, Shape{d.batch, predictions, d.vocab}, "masked_lm/logits"),
      bias(graph, "masked_lm/output_bias", Shape{d.vocab}), "masked_lm/biased_logits");
  return mean_cross_entropy(logits, labels, d.vocab, "masked_lm");
}

// modeling.py's pooler (a tanh dense layer on the first token, [CLS]) and run_pretraining.py's
// get_next_sentence_output (a dense layer to two classes). The first token is picked, like the masked
// positions, by a product with a one-hot [length] rather than a slice, which could not split length.
Tensor next_sentence_loss(mtf::Graph& graph, const Tensor& x, const Tensor& labels,
                          const TransformerDims& d) {
  const mtf::Dimension classes("next_sentence", 2);
  const Tensor pick = mtf::one_hot(graph.fill(Shape{}, 0), d.length, 1, 0, "pooler/first_token_one_hot");
  const Tensor first = mtf::einsum({x, pick}, Shape{d.batch, d.d_model}, "pooler/first_token");
  const Tensor pooled = mtf::tanh(dense(graph, first, d.d_model, d.d_model, "pooler"));
  return mean_cross_entropy(dense(graph, pooled, d.d_model, classes, "next_sentence"), labels, classes,
                            "next_sentence");
}

}  // namespace

BuiltModel build_bert(mtf::Graph& graph, const ModelConfig& model) {
  const TransformerDims d(model);
  const mtf::Dimension predictions("predictions", model.predictions);
  const Tensor ids = graph.input("token_ids", Shape{d.batch, d.length});
  const Tensor types = graph.input("token_type_ids", Shape{d.batch, d.length});
  const Tensor positions = graph.input("masked_positions", Shape{d.batch, predictions});
  const Tensor labels = graph.input("masked_label_ids", Shape{d.batch, predictions});
  const Tensor next_sentence = graph.input("next_sentence_labels", Shape{d.batch});

  const Tensor embedding = weight(graph, "embedding", Shape{d.vocab, d.d_model}, d.d_model.size);
  Tensor x = dropout(bert_embed(graph, embedding, ids, types, d), d, "embeddings/dropout");
  for (int layer = 0; layer < model.layers; ++layer) {
    const mtf::CheckpointScope checkpoint(graph);
    const std::string scope = fmt::format("layer_{}", layer);
    const Tensor attended = attention(graph, x, x, Tensor(), d, scope + "/attention", ProjectionBiases::each);
    x = bert_layer_norm(graph, mtf::add(x, dropout(attended, d, scope + "/attention/dropout")), d.d_model,
                        scope + "/attention");
    const Tensor transformed = gelu_feed_forward(graph, x, d, scope + "/ffn");
    x = bert_layer_norm(graph, mtf::add(x, dropout(transformed, d, scope + "/ffn/dropout")), d.d_model,
                        scope + "/ffn");
  }
  const Tensor loss = mtf::add(masked_lm_loss(graph, x, embedding, positions, labels, predictions, d),
                               next_sentence_loss(graph, x, next_sentence, d), "loss");
  return {loss,
          {{ids, InputRole::masked_token_ids},
           {types, InputRole::token_type_ids},
           {positions, InputRole::masked_positions},
           {labels, InputRole::masked_label_ids},
           {next_sentence, InputRole::next_sentence_labels}}};
}

}  // namespace tpusim::workloads
