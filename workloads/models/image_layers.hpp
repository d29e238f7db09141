#pragma once
// The layers the image models (resnet.cpp, unet.cpp) share. Images are [batch, h, w, channel dim] with the
// channels last, as mtf::conv takes them; h and w keep their names at every resolution (a layout rule h:rows
// splits every stage), and the channel dims are named by role: the network's input "image_channels", the
// outputs of convolutions "channels" and "filters" (model_kinds.hpp lists the dimensions layout rules may
// name). Nothing here names a mesh axis.
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

// How many times a model halves its images, and why (for the message when image_size is not a multiple).
struct ImageHalvings {
  int count = 0;
  std::string reason;
};
ImageHalvings resnet_halvings(const ModelConfig& model);
ImageHalvings unet_halvings(const ModelConfig& model);
int resnet_depth(const ModelConfig& model);  // weighted layers: 3 per block, the stem and the dense
std::string join_blocks(const std::vector<int>& blocks);  // "3,4,6,3"

// The dim of the images of one batch-norm group (model.batch_norm_span).
inline constexpr const char* kBatchNormGroupDim = "bn_images";

// The examples of a step are [batch], or [batch, bn_images] when model.batch_norm_span groups them for batch
// norm: then batch counts the groups, bn_images the images of one group.
struct ImageDims {
  explicit ImageDims(const ModelConfig& model);
  mtf::Dimension batch, h, w, image_channels, classes;
  std::vector<mtf::Dimension> examples;  // [batch] or [batch, bn_images]
  mtf::DType activations;
  // The examples' dims followed by `rest`.
  mtf::Shape with_examples(const std::vector<mtf::Dimension>& rest = {}) const;
};

// The input images [examples..., h, w, image_channels] cast to the activation dtype.
mtf::Tensor image_input(mtf::Graph& graph, const ImageDims& dims, mtf::Tensor* input);

// A window x window convolution of x (its channel dim last) to `out` channels at `stride`, "same" padding, no
// bias; the filter is "<scope>/filter" [kh, kw, x's channels, out]. When `out` has the name of x's channel
// dim (a residual block keeps "channels"), the convolution writes a dim of its own and renames it, since a
// filter cannot have two dims of one name.
mtf::Tensor conv2d(mtf::Graph& graph, const mtf::Tensor& x, std::int64_t window, std::int64_t stride,
                   const mtf::Dimension& out, const std::string& scope);

// Batch normalisation over the channels (scale 1 and bias 0 at the start, "<scope>/scale", "<scope>/bias"),
// then relu when asked. Each group of images (the dim batch, when x has bn_images) has statistics of its own.
mtf::Tensor batch_norm(mtf::Graph& graph, const mtf::Tensor& x, const std::string& scope, bool relu = true);

const mtf::Dimension& channels_of(const mtf::Tensor& x);  // the last dim

}  // namespace tpusim::workloads
