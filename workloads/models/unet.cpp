// A 2D U-Net: Ronneberger, Fischer and Brox, "U-Net: Convolutional Networks for Biomedical Image
// Segmentation", MICCAI 2015, with "same" padding (so the skip connections need no cropping and the output
// has the input's size) and batch norm before each relu. Level i (0 at the top) works on images of
// image_size / 2^i pixels with width * 2^i channels: two 3x3 convolutions on the way down, a 2x2 max pool to
// the level below; on the way up a 2x2 stride-2 up-convolution (mtf::conv_transpose) halves the channels, the
// skip connection of the level is concatenated along channels and two 3x3 convolutions follow. A 1x1
// convolution with bias gives per-pixel class logits.
//
// Dimensions: the first convolution of each pair writes "filters", the second "channels"; skip connections
// and up-convolutions meet in "channels", which therefore cannot be split (concat's axis).
#include <fmt/format.h>

#include "workloads/models/image_layers.hpp"
#include "workloads/models/model_builder.hpp"
#include "workloads/models/transformer_layers.hpp"

namespace tpusim::workloads {

using mtf::Shape;
using mtf::Tensor;

namespace {

Tensor double_conv(mtf::Graph& graph, const Tensor& x, std::int64_t width, const std::string& scope) {
  const Tensor y = batch_norm(
      graph, conv2d(graph, x, 3, 1, mtf::Dimension("filters", width), scope + "/conv_1"), scope + "/conv_1");
  return batch_norm(graph, conv2d(graph, y, 3, 1, mtf::Dimension("channels", width), scope + "/conv_2"),
                    scope + "/conv_2");
}

// x [batch, h, w, channels] -> [batch, 2h, 2w, channels of `width`].
Tensor up_conv(mtf::Graph& graph, const Tensor& x, std::int64_t width, const std::string& scope) {
  const mtf::Dimension up("filters", width);
  const mtf::Dimension& in = channels_of(x);
  const Tensor filter = weight(graph, scope + "/filter",
                               Shape{mtf::Dimension("kh", 2), mtf::Dimension("kw", 2), up, in}, 4 * in.size);
  std::vector<mtf::Dimension> dims = x.shape().dims();
  for (auto& dim : dims) {
    if (dim.name == "h" || dim.name == "w") dim.size *= 2;
  }
  dims.back() = up;
  const Tensor y =
      mtf::conv_transpose(x, filter, Shape(dims), {2, 2}, mtf::Padding::same, scope + "/up_conv");
  return mtf::rename(y, up.name, "channels", scope + "/rename");
}

}  // namespace

BuiltModel build_unet(mtf::Graph& graph, const ModelConfig& model) {
  const ImageDims d(model);
  Tensor images;
  Tensor x = image_input(graph, d, &images);
  std::vector<Tensor> skips;
  for (int level = 0; level < model.levels; ++level) {
    const mtf::CheckpointScope checkpoint(graph);
    const std::string scope = fmt::format("down_{}", level);
    x = double_conv(graph, x, model.width << level, scope);
    if (level + 1 == model.levels) break;
    skips.push_back(x);
    x = mtf::max_pool(x, {2, 2}, {2, 2}, mtf::Padding::same, scope + "/max_pool");
  }
  for (int level = model.levels - 2; level >= 0; --level) {
    const mtf::CheckpointScope checkpoint(graph);
    const std::string scope = fmt::format("up_{}", level);
    const Tensor up = up_conv(graph, x, model.width << level, scope);
    x = mtf::concat({skips[level], up}, "channels", scope + "/concat");
    x = double_conv(graph, x, model.width << level, scope);
  }
  const Tensor logits_filter =
      weight(graph, "logits/filter",
             Shape{mtf::Dimension("kh", 1), mtf::Dimension("kw", 1), channels_of(x), d.classes},
             channels_of(x).size);
  const Tensor bias = graph.variable("logits/bias", Shape{d.classes}, mtf::Initializer::zeros());
  const Tensor logits =
      mtf::add(mtf::conv(x, logits_filter, {1, 1}, mtf::Padding::same, "logits/conv"), bias, "logits");
  const Tensor labels = graph.input("pixel_labels", Shape{d.batch, d.h, d.w});
  const Tensor cross_entropy =
      mtf::softmax_cross_entropy(logits, mtf::one_hot(labels, d.classes), d.classes.name, "cross_entropy");
  const Tensor loss = mtf::reduce_mean(cross_entropy, Shape{}, "loss");
  return {loss, {{images, InputRole::images}, {labels, InputRole::pixel_labels}}};
}

}  // namespace tpusim::workloads
