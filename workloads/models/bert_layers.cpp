#include "workloads/models/bert_layers.hpp"

#include <vector>

namespace tpusim::workloads {

using mtf::Shape;
using mtf::Tensor;

Tensor dense(mtf::Graph& graph, const Tensor& x, const mtf::Dimension& in, const mtf::Dimension& out,
             const std::string& scope) {
  Tensor input = x;
  mtf::Dimension reduced = in;
  if (in.name == out.name) {
    reduced = mtf::Dimension(in.name + "_in", in.size);
    input = mtf::rename(x, in.name, reduced.name, scope + "/input");
  }
  std::vector<mtf::Dimension> dims = input.shape().minus({reduced.name}).dims();
  dims.push_back(out);
  const Tensor w = weight(graph, scope + "/kernel", Shape{reduced, out}, reduced.size);
  const Tensor product = mtf::einsum({input, w}, Shape(dims), scope + "/dense");
  return mtf::add(product, bias(graph, scope + "/bias", Shape{out}), scope + "/biased");
}

Tensor bert_layer_norm(mtf::Graph& graph, const Tensor& x, const mtf::Dimension& dim,
                       const std::string& scope) {
  const Tensor scale = graph.variable(scope + "/layer_norm_scale", Shape{dim}, mtf::Initializer::constant(1));
  const Tensor offset = bias(graph, scope + "/layer_norm_bias", Shape{dim});
  return mtf::layer_norm(x, dim.name, scale, offset, 1e-12, scope + "/layer_norm");
}

Tensor gelu_feed_forward(mtf::Graph& graph, const Tensor& x, const TransformerDims& dims,
                         const std::string& scope) {
  const Tensor hidden = mtf::gelu(dense(graph, x, dims.d_model, dims.d_ff, scope + "/intermediate"));
  return dense(graph, hidden, dims.d_ff, dims.d_model, scope + "/output");
}

Tensor bert_embed(mtf::Graph& graph, const Tensor& table, const Tensor& ids, const Tensor& token_types,
                  const TransformerDims& dims) {
  const mtf::Dimension types("token_types", kBertTokenTypes);
  const Tensor type_table =
      weight(graph, "embeddings/token_type_embedding", Shape{types, dims.d_model}, dims.d_model.size);
  const Tensor positions =
      weight(graph, "embeddings/positional_embedding", Shape{dims.length, dims.d_model}, dims.d_model.size);
  const Tensor summed =
      mtf::add(mtf::add(mtf::gather(table, ids, dims.vocab.name, "embeddings/word_lookup"),
                        mtf::gather(type_table, token_types, types.name, "embeddings/token_type_lookup")),
               positions, "embeddings/sum");
  const Tensor cast = summed.dtype() == dims.activations ? summed : mtf::cast(summed, dims.activations);
  return bert_layer_norm(graph, cast, dims.d_model, "embeddings");
}

}  // namespace tpusim::workloads
