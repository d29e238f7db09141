#pragma once
// Figures of the engine's local convolutions on this machine (used by `tpusim bench conv`): the wall time of
// the conv kernels of a numerics step (forward, input gradient, filter gradient: im2col or col2im plus
// sgemm) against plain OpenBLAS sgemm on the matrix shapes those three products have. Wall-clock figures:
// printed by benchmarks, never asserted by tests.
#include <cstdint>
#include <string>
#include <vector>

namespace tpusim::workloads {

struct ConvLayerShape {
  std::int64_t batch = 8, size = 56, in_channels = 64, out_channels = 64, window = 3, stride = 1;
  std::string to_string() const;  // "8x56x56x64 -> 64, 3x3 stride 1"
};

struct ConvEfficiency {
  ConvLayerShape shape;
  int steps = 0;
  double engine_s = 0;  // fastest step's conv kernels (three products)
  double blas_s = 0;    // fastest round of the three plain sgemm products
  double flops = 0;     // of the three products, per step
  double engine_gflops() const { return flops / engine_s / 1e9; }
  double blas_gflops() const { return flops / blas_s / 1e9; }
  double efficiency() const { return blas_s / engine_s; }
};

// The ResNet-50 layers the benchmark runs by default (He et al. 2016, table 1): the 7x7 stem, 3x3 and 1x1
// convolutions of each stage, a strided 3x3.
std::vector<ConvLayerShape> default_conv_layers();

// One "same" conv with its two gradients on one core, `steps` steps alternating with sgemm rounds; the best
// of each is compared (the usual estimate on a shared machine).
ConvEfficiency measure_conv_efficiency(const ConvLayerShape& shape, int steps);

}  // namespace tpusim::workloads
