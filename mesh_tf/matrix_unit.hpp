#pragma once
// The matrix unit (MXU) of a TPU core: weight-stationary systolic arrays of side x side multiply-accumulate
// cells. One operand's [k, n] block is held in an array a side x side tile at a time while the other
// operand's rows stream through it, one row per cycle per array. Sources, cited beside the presets in
// device_model.cpp: 128 x 128 arrays (Cloud TPU system architecture page), 1, 2 and 4 arrays per core on TPU
// v2, v3 and v4 (that page; Jouppi et al., ISCA 2023), 4 on v5e, 8 on v5p's megacore of two TensorCores and
// two 256 x 256 arrays on v6e (the Cloud TPU v5e, v5p and v6e pages), rows streamed in groups of 8 sublanes
// (a bf16[8,128] x bf16[128,128] product every 8 cycles: Austin et al., "How to Scale Your Model", 2025, TPU
// chapter), and a tile shifted into the array in `side` cycles, hidden behind the previous tile's rows by
// double buffering only when that tile streams at least `side` rows (Jouppi et al., ISCA 2017, section 2: "to
// hide the 256 cycles it takes to shift a tile in" on the 256-wide TPU v1 array).
#include <cstdint>

namespace tpusim::mtf {

// A two-operand contraction on one core, after XLA has made it a batched matmul:
// out[batch, m, n] = sum over k of a[batch, m, k] * b[batch, k, n]; each size the product of its dims'
// local sizes (1 where there are none).
struct MatmulSizes {
  std::int64_t batch = 1, m = 1, n = 1, k = 1;
};

// Whether XLA keeps the contraction a dot for the matrix unit. Its AlgebraicSimplifier (HandleDot, with
// enable_dot_strength_reduction on, tensorflow/compiler/xla/service/algebraic_simplifier.cc) rewrites a dot
// with no contracted dimension into a multiply, and a dot one of whose operands has only batch and
// contracted dimensions into a multiply and a reduce, both for the vector unit; size-1 dimensions are
// removed first (RemoveDegenerateDimensionFromDot, the same pass run to a fixed point). So a per-example
// dot product (m = 1) or an outer product (k = 1) never reaches the matrix unit.
bool runs_on_matrix_unit(const MatmulSizes& sizes);

class MatrixUnit {
 public:
  // Throws InputError unless 8 <= side <= 1024, 1 <= arrays_per_core <= 64 and 1 <= row_granule <= side.
  MatrixUnit(int side, int arrays_per_core, int row_granule);
  int side() const { return side_; }
  int arrays_per_core() const { return arrays_per_core_; }
  int row_granule() const { return row_granule_; }
  // Multiply-accumulates per cycle of the core's arrays together: the peak FLOP rate is twice this times
  // the clock.
  double macs_per_cycle() const { return 1.0 * side_ * side_ * arrays_per_core_; }

  // Cycles of one matmul, the faster of the two choices of stationary operand: batch x ceil(k / side) x
  // ceil(n / side) tiles of the stationary [k, n] operand, spread over the arrays, each streaming the m
  // rows padded to the row granule and never fewer than `side` cycles (the next tile's shift), plus one
  // fill and drain of the pipeline (2 x side cycles: a row crosses the array, its sums run down it).
  double cycles(const MatmulSizes& sizes) const;

 private:
  double cycles_with_stationary_n(const MatmulSizes& sizes) const;
  int side_;
  int arrays_per_core_;
  int row_granule_;
};

}  // namespace tpusim::mtf
