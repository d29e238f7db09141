// The one file that includes <cblas.h>.
#include "mesh_tf/local_kernels.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "topologies/support/check.hpp"

namespace tpusim::mtf::kernels {
namespace {

// Calls inner(count, offsets) for every run along the last dim of `sizes`, with per-operand offsets
// advanced by their strides (the innermost strides are handled by the callee).
template <int N, class Inner>
void for_each_row(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>* strides[N],
                  Inner inner) {
  const int rank = static_cast<int>(sizes.size());
  for (const auto size : sizes) {
    if (size == 0) return;
  }
  if (rank == 0) {
    std::int64_t offsets[N] = {};
    inner(1, offsets);
    return;
  }
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t offsets[N] = {};
  const std::int64_t count = sizes[rank - 1];
  while (true) {
    inner(count, offsets);
    int d = rank - 2;
    for (; d >= 0; --d) {
      ++index[d];
      for (int k = 0; k < N; ++k) offsets[k] += (*strides[k])[d];
      if (index[d] < sizes[d]) break;
      for (int k = 0; k < N; ++k) offsets[k] -= (*strides[k])[d] * sizes[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> strides(sizes.size());
  std::int64_t s = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= sizes[i];
  }
  return strides;
}

// dst (contiguous, dims `dst`) = src (dims `src`, a superset or subset) gathered/broadcast by name.
void strided_copy(const float* src, const LocalDims& src_dims, float* dst, const LocalDims& dst_dims) {
  const auto s = broadcast_strides(src_dims, dst_dims);
  const auto d = contiguous_strides(dst_dims.sizes);
  const std::vector<std::int64_t>* strides[2] = {&s, &d};
  const std::int64_t inner = s.empty() ? 0 : s.back();
  for_each_row<2>(dst_dims.sizes, strides, [&](std::int64_t n, const std::int64_t* off) {
    const float* in = src + off[0];
    float* out = dst + off[1];
    if (inner == 1) {
      std::memcpy(out, in, n * sizeof(float));
    } else {
      for (std::int64_t i = 0; i < n; ++i) out[i] = in[i * inner];
    }
  });
}

LocalDims subset(const LocalDims& dims, const std::vector<std::string>& names) {
  LocalDims out;
  for (const auto& name : names) {
    const int i = dims.index_of(name);
    TPUSIM_CHECK(i >= 0);
    out.names.push_back(name);
    out.sizes.push_back(dims.sizes[i]);
  }
  return out;
}

LocalDims concat_dims(const LocalDims& a, const LocalDims& b, const std::vector<std::string>& a_names,
                      const std::vector<std::string>& b_names) {
  LocalDims out = subset(a, a_names);
  const LocalDims tail = subset(b, b_names);
  out.names.insert(out.names.end(), tail.names.begin(), tail.names.end());
  out.sizes.insert(out.sizes.end(), tail.sizes.begin(), tail.sizes.end());
  return out;
}

std::int64_t product(const LocalDims& dims, const std::vector<std::string>& names) {
  std::int64_t p = 1;
  for (const auto& name : names) p *= dims.sizes[dims.index_of(name)];
  return p;
}

bool names_equal(const std::vector<std::string>& a, const std::vector<std::string>& b) { return a == b; }

std::vector<std::string> cat(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

std::int64_t LocalDims::elements() const {
  std::int64_t n = 1;
  for (const auto s : sizes) n *= s;
  return n;
}

int LocalDims::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::int64_t> broadcast_strides(const LocalDims& x, const LocalDims& out) {
  const auto x_strides = contiguous_strides(x.sizes);
  std::vector<std::int64_t> strides(out.names.size(), 0);
  for (std::size_t i = 0; i < out.names.size(); ++i) {
    const int j = x.index_of(out.names[i]);
    if (j >= 0) strides[i] = x_strides[j];
  }
  return strides;
}

EinsumPlan::EinsumPlan(std::vector<LocalDims> inputs, LocalDims output)
    : inputs_(std::move(inputs)), output_(std::move(output)) {
  TPUSIM_CHECK(inputs_.size() == 1 || inputs_.size() == 2);
  if (inputs_.size() == 1) {
    flops_ = static_cast<double>(inputs_[0].elements());
    return;
  }
  const LocalDims& a = inputs_[0];
  const LocalDims& b = inputs_[1];
  for (int k = 0; k < 2; ++k) {
    const LocalDims& x = inputs_[k];
    const LocalDims& other = inputs_[1 - k];
    std::vector<std::string> keep;
    for (const auto& name : x.names) {
      if (other.index_of(name) >= 0 || output_.index_of(name) >= 0) keep.push_back(name);
    }
    needs_pre_reduce_.push_back(keep.size() != x.names.size());
    reduced_inputs_.push_back(subset(x, keep));
  }
  const LocalDims& ra = reduced_inputs_[0];
  const LocalDims& rb = reduced_inputs_[1];
  for (const auto& name : output_.names) {
    const bool in_a = ra.index_of(name) >= 0, in_b = rb.index_of(name) >= 0;
    if (in_a && in_b) batch_.push_back(name);
  }
  for (const auto& name : ra.names) {
    if (output_.index_of(name) >= 0 && rb.index_of(name) < 0) m_.push_back(name);
    if (output_.index_of(name) < 0) k_.push_back(name);  // in b by construction
  }
  for (const auto& name : rb.names) {
    if (output_.index_of(name) >= 0 && ra.index_of(name) < 0) n_.push_back(name);
  }
  nb_ = product(ra, batch_);
  nm_ = product(ra, m_);
  nk_ = product(ra, k_);
  nn_ = product(rb, n_);
  flops_ = 2.0 * nb_ * nm_ * nn_ * nk_;
  if (needs_pre_reduce_[0]) flops_ += a.elements();
  if (needs_pre_reduce_[1]) flops_ += b.elements();
  // Use the operands in place when their order already is [batch, m, k] (or [batch, k, m], transposed).
  a_direct_ = names_equal(ra.names, cat({batch_, m_, k_}));
  a_trans_ = !a_direct_ && names_equal(ra.names, cat({batch_, k_, m_}));
  b_direct_ = names_equal(rb.names, cat({batch_, k_, n_}));
  b_trans_ = !b_direct_ && names_equal(rb.names, cat({batch_, n_, k_}));
  out_direct_ = names_equal(output_.names, cat({batch_, m_, n_}));
  out_swapped_ = !out_direct_ && names_equal(output_.names, cat({batch_, n_, m_}));
}

void EinsumPlan::run_unary(const float* x, float* out) const {
  const LocalDims& in = inputs_[0];
  std::vector<std::string> kept, summed;
  for (const auto& name : in.names) (output_.index_of(name) >= 0 ? kept : summed).push_back(name);
  if (summed.empty()) {
    strided_copy(x, in, out, output_);  // a permutation and/or broadcast
    return;
  }
  // Sum over the summed dims into a tensor of the kept dims (in the input's order), then broadcast/permute it
  // into the output.
  const LocalDims kept_dims = subset(in, kept);
  const LocalDims summed_dims = subset(in, summed);
  const auto src = broadcast_strides(in, concat_dims(in, in, kept, summed));
  std::vector<std::int64_t> kept_sizes = kept_dims.sizes;
  std::vector<std::int64_t> src_kept(src.begin(), src.begin() + kept.size());
  const std::vector<std::int64_t> src_summed(src.begin() + kept.size(), src.end());
  if (kept_sizes.empty()) {
    kept_sizes.push_back(1);
    src_kept.push_back(0);
  }
  const std::int64_t last = src_summed.back();
  const std::vector<std::int64_t>* strides[1] = {&src_summed};
  std::vector<float> reduced(kept_dims.elements());
  std::vector<std::int64_t> index(kept_sizes.size(), 0);
  for (std::int64_t pos = 0; pos < kept_dims.elements(); ++pos) {
    std::int64_t base = 0;
    for (std::size_t d = 0; d < kept_sizes.size(); ++d) base += index[d] * src_kept[d];
    double acc = 0;  // accumulate in double: reductions over long dims stay accurate
    for_each_row<1>(summed_dims.sizes, strides, [&](std::int64_t n, const std::int64_t* off) {
      const float* p = x + base + off[0];
      for (std::int64_t i = 0; i < n; ++i) acc += p[i * last];
    });
    reduced[pos] = static_cast<float>(acc);
    for (int d = static_cast<int>(kept_sizes.size()) - 1; d >= 0; --d) {
      if (++index[d] < kept_sizes[d]) break;
      index[d] = 0;
    }
  }
  strided_copy(reduced.data(), kept_dims, out, output_);
}

void EinsumPlan::run(const std::vector<const float*>& in, float* output, std::vector<float>& scratch) const {
  if (inputs_.size() == 1) {
    run_unary(in[0], output);
    return;
  }
  // Scratch holds only what this product needs: pre-reduced and permuted operands, and the product when the
  // output order needs a final permutation.
  const LocalDims& ra = reduced_inputs_[0];
  const LocalDims& rb = reduced_inputs_[1];
  const std::int64_t sa = ra.elements(), sb = rb.elements(), sc = nb_ * nm_ * nn_;
  const bool copy_a = !a_direct_ && !a_trans_, copy_b = !b_direct_ && !b_trans_;
  const bool to_temp = !out_direct_ && !out_swapped_;
  const std::int64_t need = (needs_pre_reduce_[0] ? sa : 0) + (needs_pre_reduce_[1] ? sb : 0) +
                            (copy_a ? sa : 0) + (copy_b ? sb : 0) + (to_temp ? sc : 0);
  if (static_cast<std::int64_t>(scratch.size()) < need) scratch.resize(need);
  float* next = scratch.data();
  auto take = [&](bool used, std::int64_t n) {
    float* p = used ? next : nullptr;
    if (used) next += n;
    return p;
  };
  float* red_a = take(needs_pre_reduce_[0], sa);
  float* red_b = take(needs_pre_reduce_[1], sb);
  float* perm_a = take(copy_a, sa);
  float* perm_b = take(copy_b, sb);
  float* prod = take(to_temp, sc);
  const float* a = in[0];
  const float* b = in[1];
  if (needs_pre_reduce_[0]) {
    EinsumPlan({inputs_[0]}, ra).run_unary(a, red_a);
    a = red_a;
  }
  if (needs_pre_reduce_[1]) {
    EinsumPlan({inputs_[1]}, rb).run_unary(b, red_b);
    b = red_b;
  }
  bool ta = a_trans_, tb = b_trans_;
  if (copy_a) {
    strided_copy(a, ra, perm_a, subset(ra, cat({batch_, m_, k_})));
    a = perm_a;
    ta = false;
  }
  if (copy_b) {
    strided_copy(b, rb, perm_b, subset(rb, cat({batch_, k_, n_})));
    b = perm_b;
    tb = false;
  }
  float* c = to_temp ? prod : output;
  const int M = static_cast<int>(nm_), N = static_cast<int>(nn_), K = static_cast<int>(nk_);
  if (K == 0 || M == 0 || N == 0) {
    std::fill(c, c + sc, 0.0f);
  } else {
    for (std::int64_t i = 0; i < nb_; ++i) {
      const float* ai = a + i * nm_ * nk_;
      const float* bi = b + i * nk_ * nn_;
      float* ci = c + i * nm_ * nn_;
      if (out_swapped_) {
        // C^T [n, m] = B^T [n, k] x A^T [k, m]
        cblas_sgemm(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, ta ? CblasNoTrans : CblasTrans, N, M, K,
                    1.0f, bi, tb ? K : N, ai, ta ? M : K, 0.0f, ci, M);
      } else {
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K,
                    1.0f, ai, ta ? M : K, bi, tb ? K : N, 0.0f, ci, N);
      }
    }
  }
  if (to_temp) {
    LocalDims prod_dims = concat_dims(ra, rb, cat({batch_, m_}), n_);
    strided_copy(prod, prod_dims, output, output_);
  }
}

void binary(BinaryLoop loop, const float* a, const std::vector<std::int64_t>& a_strides, const float* b,
            const std::vector<std::int64_t>& b_strides, float* out, const std::vector<std::int64_t>& sizes) {
  const auto o_strides = contiguous_strides(sizes);
  const std::vector<std::int64_t>* strides[3] = {&a_strides, &b_strides, &o_strides};
  const std::int64_t ia = a_strides.empty() ? 0 : a_strides.back();
  const std::int64_t ib = b_strides.empty() ? 0 : b_strides.back();
  for_each_row<3>(sizes, strides, [&](std::int64_t n, const std::int64_t* off) {
    loop(a + off[0], ia, b + off[1], ib, out + off[2], n);
  });
}

void affine(const float* x, float* y, std::int64_t n, double scale, double offset) {
  const float s = static_cast<float>(scale), o = static_cast<float>(offset);
  for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] * s + o;
}

void reduce_max(const float* x, const LocalDims& x_dims, float* out, const LocalDims& out_dims) {
  std::fill(out, out + out_dims.elements(), -std::numeric_limits<float>::infinity());
  // Walk x; the output offset follows the strides of out laid over x's index space.
  const auto o = broadcast_strides(out_dims, x_dims);
  const auto xs = contiguous_strides(x_dims.sizes);
  const std::vector<std::int64_t>* strides[2] = {&xs, &o};
  const std::int64_t io = o.empty() ? 0 : o.back();
  for_each_row<2>(x_dims.sizes, strides, [&](std::int64_t n, const std::int64_t* off) {
    const float* p = x + off[0];
    float* q = out + off[1];
    for (std::int64_t i = 0; i < n; ++i) q[i * io] = std::max(q[i * io], p[i]);
  });
}

void copy_block(const float* src, const std::vector<std::int64_t>& src_sizes, float* dst,
                const std::vector<std::int64_t>& dst_sizes, int d, std::int64_t src_begin,
                std::int64_t dst_begin, std::int64_t len) {
  std::int64_t pre = 1, post = 1;
  for (int i = 0; i < d; ++i) pre *= src_sizes[i];
  for (std::size_t i = d + 1; i < src_sizes.size(); ++i) post *= src_sizes[i];
  const std::int64_t src_rows = src_sizes[d], dst_rows = dst_sizes[d];
  for (std::int64_t p = 0; p < pre; ++p) {
    std::memcpy(dst + (p * dst_rows + dst_begin) * post, src + (p * src_rows + src_begin) * post,
                len * post * sizeof(float));
  }
}

void gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
          const float* b, float beta, float* c) {
  cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a,
              static_cast<int>(transpose_a ? m : k), b, static_cast<int>(transpose_b ? k : n), beta, c,
              static_cast<int>(n));
}

double plain_sgemm_seconds(int m, int n, int k, bool transpose_a, bool transpose_b, int repeats) {
  std::vector<float> a(static_cast<std::size_t>(m) * k, 0.5f), b(static_cast<std::size_t>(k) * n, 0.25f),
      c(static_cast<std::size_t>(m) * n, 0.0f);
  const auto begin = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r) {
    cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
                transpose_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a.data(), transpose_a ? m : k,
                b.data(), transpose_b ? k : n, 0.0f, c.data(), n);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

}  // namespace tpusim::mtf::kernels
