// A ResNet image classifier: He, Zhang, Ren and Sun, "Deep Residual Learning for Image Recognition", CVPR
// 2016, with its bottleneck blocks as torchvision's ResNet v1.5 builds them (the stride on the 3x3
// convolution, a 1x1 projection shortcut at the first block of every stage, no biases before batch norm).
// The stem is a 7x7 stride-2 convolution and a 3x3 stride-2 max pool; stage s has stage_blocks[s] blocks of
// bottleneck width width * 2^s and output 4 * width * 2^s, the first block of every stage after the first
// halving the image. A global average pool and a dense layer with bias give the class logits.
//
// Dimensions: the block outputs (and the stem's) are "channels", the bottleneck widths "filters", so a layout
// rule on either splits every stage.
#include <fmt/format.h>

#include "workloads/models/image_layers.hpp"
#include "workloads/models/model_builder.hpp"
#include "workloads/models/transformer_layers.hpp"

namespace tpusim::workloads {

using mtf::Shape;
using mtf::Tensor;

namespace {

Tensor bottleneck_block(mtf::Graph& graph, const Tensor& x, std::int64_t filters, std::int64_t stride,
                        const std::string& scope) {
  const mtf::Dimension bottleneck("filters", filters), out("channels", 4 * filters);
  Tensor y = batch_norm(graph, conv2d(graph, x, 1, 1, bottleneck, scope + "/reduce"), scope + "/reduce");
  y = batch_norm(graph, conv2d(graph, y, 3, stride, mtf::Dimension("filters", filters), scope + "/conv3x3"),
                 scope + "/conv3x3");
  y = batch_norm(graph, conv2d(graph, y, 1, 1, out, scope + "/expand"), scope + "/expand", false);
  Tensor shortcut = x;
  if (stride != 1 || channels_of(x).size != out.size) {
    shortcut = batch_norm(graph, conv2d(graph, x, 1, stride, out, scope + "/projection"),
                          scope + "/projection", false);
  }
  return mtf::relu(mtf::add(y, shortcut, scope + "/residual"), scope + "/relu");
}

}  // namespace

BuiltModel build_resnet(mtf::Graph& graph, const ModelConfig& model) {
  const ImageDims d(model);
  Tensor images;
  Tensor x = image_input(graph, d, &images);
  x = batch_norm(graph, conv2d(graph, x, 7, 2, mtf::Dimension("channels", model.width), "stem"), "stem");
  x = mtf::max_pool(x, {3, 3}, {2, 2}, mtf::Padding::same, "stem/max_pool");
  for (std::size_t stage = 0; stage < model.stage_blocks.size(); ++stage) {
    const std::int64_t filters = model.width << stage;
    for (int block = 0; block < model.stage_blocks[stage]; ++block) {
      const mtf::CheckpointScope checkpoint(graph);
      const std::int64_t stride = stage > 0 && block == 0 ? 2 : 1;
      x = bottleneck_block(graph, x, filters, stride, fmt::format("stage_{}/block_{}", stage, block));
    }
  }
  const Tensor pooled = mtf::reduce_mean(x, d.with_examples({channels_of(x)}), "global_pool");
  const Tensor dense = weight(graph, "dense/kernel", Shape{channels_of(x), d.classes}, channels_of(x).size);
  const Tensor bias = graph.variable("dense/bias", Shape{d.classes}, mtf::Initializer::zeros());
  const Tensor logits = mtf::add(mtf::einsum({pooled, dense}, d.with_examples({d.classes}), "dense"), bias);
  const Tensor labels = graph.input("labels", d.with_examples());
  const Tensor cross_entropy =
      mtf::softmax_cross_entropy(logits, mtf::one_hot(labels, d.classes), d.classes.name, "cross_entropy");
  const Tensor loss = mtf::reduce_mean(cross_entropy, Shape{}, "loss");
  return {loss, {{images, InputRole::class_images}, {labels, InputRole::image_labels}}};
}

}  // namespace tpusim::workloads
