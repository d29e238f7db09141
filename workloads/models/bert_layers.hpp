#pragma once
// The sublayers of BERT (Devlin et al. 2018, arXiv 1810.04805) as google-research/bert's modeling.py builds
// them, on the named dimensions of transformer_layers.hpp: dense layers with a bias, layer norms with a scale
// and a bias, the GELU feed-forward sublayer and the embeddings (token, token type and position, then a layer
// norm). Attention is transformer_layers.hpp's, with ProjectionBiases::each.
#include <string>

#include "mesh_tf/graph.hpp"
#include "workloads/models/transformer_layers.hpp"

namespace tpusim::workloads {

// Token types (segments A and B) of BERT's pre-training data: type_vocab_size = 2 in bert_config.json.
constexpr std::int64_t kBertTokenTypes = 2;

// x . w[in, out] + b[out] (tf.layers.dense). When `out` has the name of `in` (BERT's pooler and the masked-LM
// transform map d_model to d_model), x's `in` is first renamed "<in>_in": one tensor cannot have two
// dimensions of one name. Weights start as weight() does for every model here; BERT's truncated normal of
// stddev 0.02 (initializer_range) would change no timing.
mtf::Tensor dense(mtf::Graph& graph, const mtf::Tensor& x, const mtf::Dimension& in,
                  const mtf::Dimension& out, const std::string& scope);

// LN(x) * scale + bias over `dim`, epsilon 1e-12 (tf.contrib.layers.layer_norm, which modeling.py calls).
mtf::Tensor bert_layer_norm(mtf::Graph& graph, const mtf::Tensor& x, const mtf::Dimension& dim,
                            const std::string& scope);

// dense(gelu(dense(x, d_model, d_ff)), d_ff, d_model): transformer_model's intermediate and output layers;
// mtf::gelu is the tanh approximation, as modeling.py's gelu.
mtf::Tensor gelu_feed_forward(mtf::Graph& graph, const mtf::Tensor& x, const TransformerDims& dims,
                              const std::string& scope);

// embedding_postprocessor of modeling.py: table[ids] + token_type_table[types] + positional embedding
// [length, d_model], then a layer norm, cast to the activation dtype. Token types are looked up as a one-hot
// product, as modeling.py does ("this vocab will be small so we always do one-hot here"); BERT's positional
// table has max_position_embeddings = 512 rows of which a sequence uses its first `length`, so here it has
// `length` rows (512 for BERT-Large's sequences).
mtf::Tensor bert_embed(mtf::Graph& graph, const mtf::Tensor& table, const mtf::Tensor& ids,
                       const mtf::Tensor& token_types, const TransformerDims& dims);

}  // namespace tpusim::workloads
