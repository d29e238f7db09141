// Closed forms of the image models (models/resnet.cpp, models/unet.cpp), written from their definitions:
// every convolution of a model is one call of Tally::conv below, in the order the model applies them.
//
// A window k x k convolution from c_in to c_out channels whose output has P positions per image, over a batch
// of N images, is a matrix product of 2 N P k^2 c_in c_out FLOPs (the engine counts its padded windows, as
// im2col does); its backward pass has two more of the same size (the image's gradient, a transposed
// convolution, and the filter's), except for the first convolution, whose input is data. An up-convolution
// (a transposed convolution) costs the same as the convolution it is the adjoint of. Parameters: k^2 c_in
// c_out per convolution, a scale and a bias per channel of each batch norm, the dense layer's or the last
// convolution's weights and bias. Over N images of S x S pixels with image_channels C, width w, K classes:
//   resnet: stem 7x7 stride 2 (C -> w, P = (S/2)^2); stage s (f = w 2^s, P = (S / 2^(s+2))^2), block j with
//           input c (w, then 4f of the stage before, then 4f): 1x1 c -> f at the input's positions, 3x3 f ->
//           f, 1x1 f -> 4f, at j = 0 a 1x1 projection c -> 4f; dense 4f_last -> K (6 N 4f_last K FLOPs)
//   unet:   level i (c_i = w 2^i, P_i = (S/2^i)^2): down 3x3 c_(i-1) -> c_i (C at the top), 3x3 c_i -> c_i;
//   up
//           (i below the bottom) 2x2 stride-2 up-convolution c_(i+1) -> c_i (2 N P_(i+1) 4 c_i c_(i+1)), 3x3
//           2c_i -> c_i, 3x3 c_i -> c_i; a 1x1 convolution c_0 -> K with bias
#include <cstdint>

#include "workloads/models/model_formulas.hpp"

namespace tpusim::workloads {
namespace {

struct Tally {
  double batch = 0;
  std::int64_t parameters = 0;
  double flops = 0;
  double activations = 0;  // elements of the convolutions' outputs, whole pod
  // `positions` are the output's per image; `normed`: a batch norm follows (a scale and bias per channel).
  void conv(double positions, std::int64_t window, std::int64_t in, std::int64_t out, bool first = false,
            bool normed = true) {
    parameters += window * window * in * out + (normed ? 2 * out : 0);
    flops += (first ? 2 : 3) * 2 * batch * positions * double(window * window * in * out);
    activations += batch * positions * double(out);
  }
};

Tally resnet_tally(const ModelConfig& m) {
  Tally t;
  t.batch = double(m.batch);
  const double S = double(m.image_size);
  t.conv((S / 2) * (S / 2), 7, m.image_channels, m.width, true);
  std::int64_t channels = m.width;
  for (std::size_t s = 0; s < m.stage_blocks.size(); ++s) {
    const std::int64_t f = m.width << s;
    const double side = S / double(std::int64_t(4) << s), positions = side * side;
    for (int j = 0; j < m.stage_blocks[s]; ++j) {
      const double in_positions = s > 0 && j == 0 ? 4 * positions : positions;
      t.conv(in_positions, 1, channels, f);
      t.conv(positions, 3, f, f);
      t.conv(positions, 1, f, 4 * f);
      if (j == 0) t.conv(positions, 1, channels, 4 * f);
      channels = 4 * f;
    }
  }
  t.parameters += channels * m.classes + m.classes;
  t.flops += 6 * t.batch * double(channels) * double(m.classes);
  return t;
}

Tally unet_tally(const ModelConfig& m) {
  Tally t;
  t.batch = double(m.batch);
  const auto positions = [&](int level) {
    const double side = double(m.image_size) / double(std::int64_t(1) << level);
    return side * side;
  };
  std::int64_t channels = m.image_channels;
  for (int i = 0; i < m.levels; ++i) {
    const std::int64_t c = m.width << i;
    t.conv(positions(i), 3, channels, c, i == 0);
    t.conv(positions(i), 3, c, c);
    channels = c;
  }
  for (int i = m.levels - 2; i >= 0; --i) {
    const std::int64_t c = m.width << i;
    // The up-convolution's matrix product has the small image's positions and a 2x2 window.
    t.conv(positions(i + 1), 2, c, channels, false, false);
    t.activations += t.batch * positions(i) * double(2 * c);  // the concatenation
    t.conv(positions(i), 3, 2 * c, c);
    t.conv(positions(i), 3, c, c);
    channels = c;
  }
  t.conv(positions(0), 1, channels, m.classes, false, false);
  t.parameters += m.classes;
  return t;
}

std::int64_t resnet_parameters(const ModelConfig& m) { return resnet_tally(m).parameters; }
double resnet_flops(const ModelConfig& m) { return resnet_tally(m).flops; }
double resnet_activations(const ModelConfig& m) { return resnet_tally(m).activations; }
std::int64_t unet_parameters(const ModelConfig& m) { return unet_tally(m).parameters; }
double unet_flops(const ModelConfig& m) { return unet_tally(m).flops; }
double unet_activations(const ModelConfig& m) { return unet_tally(m).activations; }

std::vector<TensorSize> image_tensors(const ModelConfig& m, double widest_channels, double top_channels,
                                      double top_side) {
  const double N = double(m.batch), S = double(m.image_size);
  return {{"[batch, h, w, image_channels]", N * S * S * double(m.image_channels)},
          {"[batch, h, w, channels]", N * top_side * top_side * top_channels},
          {"[kh, kw, filters, channels]", 9 * widest_channels * widest_channels},
          {"[batch, h, w, classes]", N * S * S * double(m.classes)}};
}

// Sizes as doubles, so that no shift of a hostile width overflows before the config bounds it.
double widest(const ModelConfig& m, std::size_t stages) {
  double c = double(m.width);
  for (std::size_t s = 1; s < stages; ++s) c *= 2;
  return c;
}

std::vector<TensorSize> resnet_tensors(const ModelConfig& m) {
  // The first stage's outputs are the largest activations: 4w channels at a quarter of the image's side.
  std::vector<TensorSize> tensors =
      image_tensors(m, widest(m, m.stage_blocks.size()), 4 * double(m.width), double(m.image_size) / 4);
  tensors.pop_back();  // classes are per image
  tensors.push_back({"[channels, classes]", 4 * widest(m, m.stage_blocks.size()) * double(m.classes)});
  return tensors;
}

std::vector<TensorSize> unet_tensors(const ModelConfig& m) {
  return image_tensors(m, widest(m, std::size_t(m.levels)), 2 * double(m.width), double(m.image_size));
}

}  // namespace

const ModelFormulas kResNetFormulas = {resnet_parameters, resnet_parameters, resnet_flops, resnet_tensors,
                                       resnet_activations};
const ModelFormulas kUNetFormulas = {unet_parameters, unet_parameters, unet_flops, unet_tensors,
                                     unet_activations};

}  // namespace tpusim::workloads
