#include "mesh_tf/window_kernels.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "mesh_tf/local_kernels.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::mtf::kernels {
namespace {

constexpr int kMaxAxes = 3;
// Windows of at most about 1 MiB per sgemm (at least one output row's): written by im2col and read by the
// sgemm while in cache.
constexpr std::int64_t kScratchFloats = std::int64_t{1} << 18;

// The shape with its spatial dims padded to three by leading axes of one row that every window reads, so the
// last spatial dim is always a[2]: along it a window's rows are contiguous in the image and in its columns.
struct Axes3 {
  std::array<WindowAxis, kMaxAxes> a;
  explicit Axes3(const WindowShape& shape) {
    const int n = static_cast<int>(shape.axes.size());
    TPUSIM_CHECK(n >= 1 && n <= kMaxAxes);
    for (int j = 0; j < kMaxAxes; ++j)
      a[j] = j < kMaxAxes - n ? WindowAxis{} : shape.axes[j - (kMaxAxes - n)];
  }
  std::int64_t in_positions() const { return a[0].in * a[1].in * a[2].in; }
  std::int64_t out_positions() const { return a[0].out * a[1].out * a[2].out; }
  std::int64_t window_positions() const { return a[0].window * a[1].window * a[2].window; }
};

// Calls visit(window index, input position or -1 for padding) for every position of the window of output
// position (o0, o1, o2), in row-major window order.
template <class Visit>
void for_each_window_position(const Axes3& s, std::int64_t o0, std::int64_t o1, std::int64_t o2,
                              Visit visit) {
  std::int64_t w = 0;
  for (std::int64_t q0 = 0; q0 < s.a[0].window; ++q0) {
    const std::int64_t r0 = o0 * s.a[0].stride + q0 - s.a[0].before;
    const bool in0 = r0 >= s.a[0].valid_begin && r0 < s.a[0].valid_end;
    for (std::int64_t q1 = 0; q1 < s.a[1].window; ++q1) {
      const std::int64_t r1 = o1 * s.a[1].stride + q1 - s.a[1].before;
      const bool in1 = in0 && r1 >= s.a[1].valid_begin && r1 < s.a[1].valid_end;
      for (std::int64_t q2 = 0; q2 < s.a[2].window; ++q2, ++w) {
        const std::int64_t r2 = o2 * s.a[2].stride + q2 - s.a[2].before;
        const bool inside = in1 && r2 >= s.a[2].valid_begin && r2 < s.a[2].valid_end;
        visit(w, inside ? (r0 * s.a[1].in + r1) * s.a[2].in + r2 : std::int64_t{-1});
      }
    }
  }
}

// Calls visit(output position, o0, o1, o2) for every output position, in row-major order.
template <class Visit>
void for_each_output_position(const Axes3& s, Visit visit) {
  std::int64_t o = 0;
  for (std::int64_t o0 = 0; o0 < s.a[0].out; ++o0) {
    for (std::int64_t o1 = 0; o1 < s.a[1].out; ++o1) {
      for (std::int64_t o2 = 0; o2 < s.a[2].out; ++o2, ++o) visit(o, o0, o1, o2);
    }
  }
}

// Calls visit(first window index, first input position, count) for each run of window positions inside the
// image that are contiguous along the last spatial dim, and pad(first window index, count) for those outside.
template <class Visit, class Pad>
void for_each_window_run(const Axes3& s, std::int64_t o0, std::int64_t o1, std::int64_t o2, Visit visit,
                         Pad pad) {
  const WindowAxis& last = s.a[2];
  const std::int64_t base = o2 * last.stride - last.before;
  const std::int64_t begin = std::clamp<std::int64_t>(last.valid_begin - base, 0, last.window);
  const std::int64_t end = std::clamp<std::int64_t>(last.valid_end - base, begin, last.window);
  std::int64_t w = 0;
  for (std::int64_t q0 = 0; q0 < s.a[0].window; ++q0) {
    const std::int64_t r0 = o0 * s.a[0].stride + q0 - s.a[0].before;
    const bool in0 = r0 >= s.a[0].valid_begin && r0 < s.a[0].valid_end;
    for (std::int64_t q1 = 0; q1 < s.a[1].window; ++q1, w += last.window) {
      const std::int64_t r1 = o1 * s.a[1].stride + q1 - s.a[1].before;
      if (!in0 || r1 < s.a[1].valid_begin || r1 >= s.a[1].valid_end || begin == end) {
        pad(w, last.window);
        continue;
      }
      if (begin > 0) pad(w, begin);
      visit(w + begin, (r0 * s.a[1].in + r1) * last.in + base + begin, end - begin);
      if (end < last.window) pad(w + end, last.window - end);
    }
  }
}

// Calls visit(row, image, o0, o1, o2) for the output rows [begin, end) of the flat (image, output position)
// order, o0..o2 the row's output position.
template <class Visit>
void for_each_row(const Axes3& s, std::int64_t begin, std::int64_t end, Visit visit) {
  for (std::int64_t row = begin; row < end; ++row) {
    const std::int64_t o = row % s.out_positions();
    visit(row, row / s.out_positions(), o / (s.a[1].out * s.a[2].out), o / s.a[2].out % s.a[1].out,
          o % s.a[2].out);
  }
}

// cols[row - begin, (w, c)] for the rows [begin, end): the window of each output position, padding as zeros.
void im2col(const float* x, const Axes3& s, std::int64_t channels, std::int64_t begin, std::int64_t end,
            float* cols) {
  const std::int64_t width = s.window_positions() * channels;
  for_each_row(s, begin, end,
               [&](std::int64_t row, std::int64_t n, std::int64_t o0, std::int64_t o1, std::int64_t o2) {
                 const float* image = x + n * s.in_positions() * channels;
                 float* out = cols + (row - begin) * width;
                 for_each_window_run(
                     s, o0, o1, o2,
                     [&](std::int64_t w, std::int64_t position, std::int64_t run) {
                       std::memcpy(out + w * channels, image + position * channels,
                                   sizeof(float) * run * channels);
                     },
                     [&](std::int64_t w, std::int64_t run) {
                       std::fill(out + w * channels, out + (w + run) * channels, 0.0f);
                     });
               });
}

// The adjoint of im2col: each window entry inside the image is added to its input position.
void col2im_add(const float* cols, const Axes3& s, std::int64_t channels, std::int64_t begin,
                std::int64_t end, float* x) {
  const std::int64_t width = s.window_positions() * channels;
  for_each_row(s, begin, end,
               [&](std::int64_t row, std::int64_t n, std::int64_t o0, std::int64_t o1, std::int64_t o2) {
                 float* image = x + n * s.in_positions() * channels;
                 const float* in = cols + (row - begin) * width;
                 for_each_window_run(
                     s, o0, o1, o2,
                     [&](std::int64_t w, std::int64_t position, std::int64_t run) {
                       const float* src = in + w * channels;
                       float* dst = image + position * channels;
                       for (std::int64_t i = 0; i < run * channels; ++i) dst[i] += src[i];
                     },
                     [](std::int64_t, std::int64_t) {});
               });
}

// Calls run(begin, end) for the output rows [0, rows) in chunks whose windows stay within the scratch budget,
// so that they are still in cache when the sgemm reads them; scratch is grown to one chunk's windows.
template <class Run>
void in_chunks(const Axes3& s, std::int64_t channels, std::int64_t rows, std::vector<float>& scratch,
               Run run) {
  const std::int64_t width = std::max<std::int64_t>(1, s.window_positions() * channels);
  const std::int64_t chunk =
      std::clamp<std::int64_t>(kScratchFloats / width, 1, std::max<std::int64_t>(rows, 1));
  scratch.resize(std::max<std::size_t>(scratch.size(), chunk * width));
  for (std::int64_t begin = 0; begin < rows; begin += chunk) run(begin, std::min(rows, begin + chunk));
}

}  // namespace

std::int64_t WindowShape::in_positions() const { return Axes3(*this).in_positions(); }
std::int64_t WindowShape::out_positions() const { return Axes3(*this).out_positions(); }
std::int64_t WindowShape::window_positions() const { return Axes3(*this).window_positions(); }

bool WindowShape::is_pointwise() const {
  for (const auto& axis : axes) {
    if (axis.window != 1 || axis.stride != 1 || axis.before != 0 || axis.in != axis.out ||
        axis.valid_begin != 0 || axis.valid_end != axis.in)
      return false;
  }
  return true;
}

void conv_forward(const float* x, const float* filter, std::int64_t out_channels, const WindowShape& shape,
                  float* y, std::vector<float>& scratch) {
  const Axes3 s(shape);
  const std::int64_t k = s.window_positions() * shape.channels;
  if (shape.is_pointwise()) {
    gemm(false, false, shape.lead * s.out_positions(), out_channels, k, x, filter, 0.0f, y);
    return;
  }
  in_chunks(s, shape.channels, shape.lead * s.out_positions(), scratch,
            [&](std::int64_t begin, std::int64_t end) {
              im2col(x, s, shape.channels, begin, end, scratch.data());
              gemm(false, false, end - begin, out_channels, k, scratch.data(), filter, 0.0f,
                   y + begin * out_channels);
            });
}

void conv_input_gradient(const float* dy, const float* filter, std::int64_t out_channels,
                         const WindowShape& shape, float* dx, std::vector<float>& scratch) {
  const Axes3 s(shape);
  const std::int64_t k = s.window_positions() * shape.channels;
  if (shape.is_pointwise()) {
    gemm(false, true, shape.lead * s.out_positions(), k, out_channels, dy, filter, 1.0f, dx);
    return;
  }
  in_chunks(s, shape.channels, shape.lead * s.out_positions(), scratch,
            [&](std::int64_t begin, std::int64_t end) {
              gemm(false, true, end - begin, k, out_channels, dy + begin * out_channels, filter, 0.0f,
                   scratch.data());
              col2im_add(scratch.data(), s, shape.channels, begin, end, dx);
            });
}

void conv_filter_gradient(const float* x, const float* dy, std::int64_t out_channels,
                          const WindowShape& shape, float* dfilter, std::vector<float>& scratch) {
  const Axes3 s(shape);
  const std::int64_t k = s.window_positions() * shape.channels;
  if (shape.is_pointwise()) {
    gemm(true, false, k, out_channels, shape.lead * s.out_positions(), x, dy, 0.0f, dfilter);
    return;
  }
  in_chunks(s, shape.channels, shape.lead * s.out_positions(), scratch,
            [&](std::int64_t begin, std::int64_t end) {
              im2col(x, s, shape.channels, begin, end, scratch.data());
              gemm(true, false, k, out_channels, end - begin, scratch.data(), dy + begin * out_channels,
                   begin == 0 ? 0.0f : 1.0f, dfilter);
            });
}

void pool_forward(PoolKind kind, const float* x, const WindowShape& shape, float* y) {
  const Axes3 s(shape);
  const std::int64_t c_count = shape.channels;
  std::vector<float> acc(c_count);
  for (std::int64_t n = 0; n < shape.lead; ++n) {
    const float* image = x + n * s.in_positions() * c_count;
    float* out = y + n * s.out_positions() * c_count;
    for_each_output_position(s, [&](std::int64_t o, std::int64_t o0, std::int64_t o1, std::int64_t o2) {
      std::fill(acc.begin(), acc.end(),
                kind == PoolKind::max ? -std::numeric_limits<float>::infinity() : 0.0f);
      std::int64_t inside = 0;
      for_each_window_position(s, o0, o1, o2, [&](std::int64_t, std::int64_t position) {
        if (position < 0) return;
        ++inside;
        const float* src = image + position * c_count;
        for (std::int64_t c = 0; c < c_count; ++c)
          acc[c] = kind == PoolKind::max ? std::max(acc[c], src[c]) : acc[c] + src[c];
      });
      TPUSIM_CHECK(inside > 0);  // every window of "same" or "valid" padding holds a row of the image
      for (std::int64_t c = 0; c < c_count; ++c)
        out[o * c_count + c] = kind == PoolKind::max ? acc[c] : acc[c] / static_cast<float>(inside);
    });
  }
}

void pool_gradient(PoolKind kind, const float* x, const float* dy, const WindowShape& shape, float* dx) {
  const Axes3 s(shape);
  const std::int64_t c_count = shape.channels;
  std::vector<float> best(c_count);
  std::vector<std::int64_t> best_position(c_count);
  for (std::int64_t n = 0; n < shape.lead; ++n) {
    const float* image = x == nullptr ? nullptr : x + n * s.in_positions() * c_count;
    const float* grad = dy + n * s.out_positions() * c_count;
    float* image_grad = dx + n * s.in_positions() * c_count;
    for_each_output_position(s, [&](std::int64_t o, std::int64_t o0, std::int64_t o1, std::int64_t o2) {
      const float* g = grad + o * c_count;
      if (kind == PoolKind::average) {
        std::int64_t inside = 0;
        for_each_window_position(s, o0, o1, o2, [&](std::int64_t, std::int64_t p) { inside += p >= 0; });
        const float share = 1.0f / static_cast<float>(inside);
        for_each_window_position(s, o0, o1, o2, [&](std::int64_t, std::int64_t position) {
          if (position < 0) return;
          float* dst = image_grad + position * c_count;
          for (std::int64_t c = 0; c < c_count; ++c) dst[c] += g[c] * share;
        });
        return;
      }
      std::fill(best.begin(), best.end(), -std::numeric_limits<float>::infinity());
      std::fill(best_position.begin(), best_position.end(), -1);
      for_each_window_position(s, o0, o1, o2, [&](std::int64_t, std::int64_t position) {
        if (position < 0) return;
        const float* src = image + position * c_count;
        for (std::int64_t c = 0; c < c_count; ++c) {
          if (best_position[c] < 0 || src[c] > best[c]) {
            best[c] = src[c];
            best_position[c] = position;
          }
        }
      });
      for (std::int64_t c = 0; c < c_count; ++c) image_grad[best_position[c] * c_count + c] += g[c];
    });
  }
}

}  // namespace tpusim::mtf::kernels
