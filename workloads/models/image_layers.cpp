#include "workloads/models/image_layers.hpp"

#include <fmt/format.h>

#include "workloads/models/transformer_layers.hpp"

namespace tpusim::workloads {

using mtf::Shape;
using mtf::Tensor;

ImageHalvings resnet_halvings(const ModelConfig& m) {
  const int stages = static_cast<int>(m.stage_blocks.size());
  return {stages + 1,
          fmt::format("the stem's stride-2 convolution and max pool, and a stride-2 block starting "
                      "each stage after the first; stages {}",
                      stages)};
}

ImageHalvings unet_halvings(const ModelConfig& m) {
  return {m.levels - 1, fmt::format("a 2x2 max pool down to each level below the top; levels {}", m.levels)};
}

int resnet_depth(const ModelConfig& m) {
  int blocks = 0;
  for (const int b : m.stage_blocks) blocks += b;
  return 3 * blocks + 2;
}

std::string join_blocks(const std::vector<int>& blocks) {
  std::string text;
  for (const int b : blocks) text += (text.empty() ? "" : ",") + std::to_string(b);
  return text;
}

ImageDims::ImageDims(const ModelConfig& m)
    : batch("batch", m.batch_norm_span > 0 ? m.batch / m.batch_norm_span : m.batch),
      h("h", m.image_size),
      w("w", m.image_size),
      image_channels("image_channels", m.image_channels),
      classes("classes", m.classes),
      examples{batch},
      activations(m.activation_dtype) {
  if (m.batch_norm_span > 0) examples.emplace_back(kBatchNormGroupDim, m.batch_norm_span);
}

mtf::Shape ImageDims::with_examples(const std::vector<mtf::Dimension>& rest) const {
  std::vector<mtf::Dimension> dims = examples;
  dims.insert(dims.end(), rest.begin(), rest.end());
  return mtf::Shape(dims);
}

Tensor image_input(mtf::Graph& graph, const ImageDims& d, Tensor* input) {
  *input = graph.input("images", d.with_examples({d.h, d.w, d.image_channels}));
  return d.activations == mtf::DType::float32 ? *input : mtf::cast(*input, d.activations);
}

const mtf::Dimension& channels_of(const Tensor& x) { return x.shape().dims().back(); }

Tensor conv2d(mtf::Graph& graph, const Tensor& x, std::int64_t window, std::int64_t stride,
              const mtf::Dimension& out, const std::string& scope) {
  const mtf::Dimension& in = channels_of(x);
  const bool same_name = in.name == out.name;
  const mtf::Dimension written(same_name ? out.name + "_out" : out.name, out.size);
  const Tensor filter = weight(graph, scope + "/filter",
                               Shape{mtf::Dimension("kh", window), mtf::Dimension("kw", window), in, written},
                               window * window * in.size);
  const Tensor y = mtf::conv(x, filter, {stride, stride}, mtf::Padding::same, scope + "/conv");
  return same_name ? mtf::rename(y, written.name, out.name, scope + "/rename") : y;
}

Tensor batch_norm(mtf::Graph& graph, const Tensor& x, const std::string& scope, bool relu) {
  const Shape channels{channels_of(x)};
  const Tensor scale = graph.variable(scope + "/scale", channels, mtf::Initializer::constant(1));
  const Tensor bias = graph.variable(scope + "/bias", channels, mtf::Initializer::constant(0));
  std::vector<std::string> groups;
  if (x.shape().index_of(kBatchNormGroupDim) >= 0) groups.push_back("batch");
  const Tensor y = mtf::batch_norm(x, scale, bias, 1e-5, scope + "/batch_norm", groups);
  return relu ? mtf::relu(y, scope + "/relu") : y;
}

}  // namespace tpusim::workloads
