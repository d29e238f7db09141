#pragma once
// Local work on one slice: einsum through BLAS sgemm (batched by loops over the batch dims), broadcasting
// elementwise ops, reductions and block copies. Plans are built once at lowering and run per slice and step.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mesh_tf/matrix_unit.hpp"

namespace tpusim::mtf::kernels {

struct LocalDims {
  std::vector<std::string> names;
  std::vector<std::int64_t> sizes;
  std::int64_t elements() const;
  int index_of(const std::string& name) const;
};

// Strides of `x` laid over the index space of `out` (0 for dims of out that x lacks; every dim of x must be
// in out).
std::vector<std::int64_t> broadcast_strides(const LocalDims& x, const LocalDims& out);

class EinsumPlan {
 public:
  EinsumPlan() = default;
  EinsumPlan(std::vector<LocalDims> inputs, LocalDims output);
  double flops() const { return flops_; }
  // The batched matmul a two-input plan runs (all 1 for a one-input plan, which has none).
  MatmulSizes matmul_sizes() const { return {nb_, nm_, nn_, nk_}; }
  // Whether a two-input plan first sums a dim only one input has.
  bool pre_reduces() const {
    return std::find(needs_pre_reduce_.begin(), needs_pre_reduce_.end(), true) != needs_pre_reduce_.end();
  }
  // scratch is reused between calls; it only grows.
  void run(const std::vector<const float*>& inputs, float* output, std::vector<float>& scratch) const;

 private:
  void run_unary(const float* x, float* out) const;
  std::vector<LocalDims> inputs_;
  LocalDims output_;
  double flops_ = 0;
  // two-input plan: after pre-reducing input-only dims, a [batch, m, k] and b [batch, k, n] products
  std::vector<std::string> batch_, m_, n_, k_;
  std::int64_t nb_ = 1, nm_ = 1, nn_ = 1, nk_ = 1;
  std::vector<LocalDims> reduced_inputs_;  // inputs without their input-only dims
  std::vector<bool> needs_pre_reduce_;
  bool a_direct_ = false, a_trans_ = false, b_direct_ = false, b_trans_ = false, out_direct_ = false;
  bool out_swapped_ = false;  // output is [batch, n, m]: compute C^T = B^T A^T in place
};

// The innermost loops of the elementwise ops, one instance per op in the op family's table
// (ops/binary.cpp, ops/unary.cpp): z[i] = f(x[i * x_stride], y[i * y_stride]) and y[i] = f(x[i]).
using BinaryLoop = void (*)(const float* x, std::int64_t x_stride, const float* y, std::int64_t y_stride,
                            float* z, std::int64_t n);
using UnaryLoop = void (*)(const float* x, float* y, std::int64_t n);
template <float (*f)(float, float)>
void binary_loop(const float* x, std::int64_t x_stride, const float* y, std::int64_t y_stride, float* z,
                 std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) z[i] = f(x[i * x_stride], y[i * y_stride]);
}
template <float (*f)(float)>
void unary_loop(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

// out = loop(a, b) over the index space `sizes` of out, a and b broadcast by their strides.
void binary(BinaryLoop loop, const float* a, const std::vector<std::int64_t>& a_strides, const float* b,
            const std::vector<std::int64_t>& b_strides, float* out, const std::vector<std::int64_t>& sizes);
void affine(const float* x, float* y, std::int64_t n, double scale, double offset);
// out = max over the dims of x missing in out.
void reduce_max(const float* x, const LocalDims& x_dims, float* out, const LocalDims& out_dims);
// A row-major slice seen along dim d as [pre, rows, post]: element (p, r, q) is at (p * rows + r) * post + q.
struct AxisView {
  std::int64_t pre = 1, rows = 1, post = 1;
  AxisView(const std::vector<std::int64_t>& sizes, int d) {
    for (int i = 0; i < d; ++i) pre *= sizes[i];
    rows = sizes[d];
    for (std::size_t i = d + 1; i < sizes.size(); ++i) post *= sizes[i];
  }
  std::int64_t at(std::int64_t p, std::int64_t r, std::int64_t q) const { return (p * rows + r) * post + q; }
};

// Copies src (shape src_sizes) into dst (shape dst_sizes), the same except along dim d, where src rows
// [src_begin, src_begin+len) go to dst rows [dst_begin, dst_begin+len).
void copy_block(const float* src, const std::vector<std::int64_t>& src_sizes, float* dst,
                const std::vector<std::int64_t>& dst_sizes, int d, std::int64_t src_begin,
                std::int64_t dst_begin, std::int64_t len);

// Row-major C[m, n] = A[m, k] B[k, n] (op(A), op(B) transposed as asked) + beta C, through BLAS sgemm; for
// kernels outside this file, which alone includes <cblas.h>.
void gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
          const float* b, float beta, float* c);

// Wall time of `repeats` plain cblas_sgemm calls C[m,n] = A[m,k] B[k,n] (the engine-overhead baseline).
double plain_sgemm_seconds(int m, int n, int k, bool transpose_a, bool transpose_b, int repeats);

}  // namespace tpusim::mtf::kernels
