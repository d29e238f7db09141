// Convolutions and pooling against plain loops in double precision written here, on one core and under splits
// of batch, spatial dims (halo exchange, or a gather where tiles do not align) and channels; halo counters
// against their closed form; bad window ops.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "mesh_tf/autodiff.hpp"
#include "mesh_tf/execution.hpp"
#include "mesh_tf/random.hpp"
#include "tests/mesh_tf/battery.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;

namespace {

// The geometry of an n-dimensional window op, worked out as TensorFlow documents "same" and "valid".
struct Geometry {
  std::int64_t batch = 1, channels = 1, out_channels = 1;
  std::vector<std::int64_t> size, window, stride, before, out;
  Geometry(std::int64_t batch, std::vector<std::int64_t> size, std::vector<std::int64_t> window,
           std::vector<std::int64_t> stride, Padding padding, std::int64_t channels,
           std::int64_t out_channels)
      : batch(batch),
        channels(channels),
        out_channels(out_channels),
        size(size),
        window(window),
        stride(stride) {
    for (std::size_t j = 0; j < size.size(); ++j) {
      if (padding == Padding::same) {
        out.push_back((size[j] + stride[j] - 1) / stride[j]);
        const std::int64_t total = std::max<std::int64_t>((out[j] - 1) * stride[j] + window[j] - size[j], 0);
        before.push_back(total / 2);
      } else {
        out.push_back((size[j] - window[j]) / stride[j] + 1);
        before.push_back(0);
      }
    }
  }
  std::int64_t count(const std::vector<std::int64_t>& sizes) const {
    std::int64_t c = 1;
    for (const auto s : sizes) c *= s;
    return c;
  }
  // Every (b, output position, window position) whose input position lies inside the image; `visit` gets
  // the flat output position and input position of image b and the flat window position.
  void for_each_tap(const std::function<void(std::int64_t b, std::int64_t o, std::int64_t q, std::int64_t i)>&
                        visit) const {
    const int n = static_cast<int>(size.size());
    for (std::int64_t b = 0; b < batch; ++b) {
      for (std::int64_t o = 0; o < count(out); ++o) {
        for (std::int64_t q = 0; q < count(window); ++q) {
          std::int64_t o_rest = o, q_rest = q, i = 0, stride_in = 1;
          bool inside = true;
          std::vector<std::int64_t> in_index(n);
          for (int j = n - 1; j >= 0; --j) {
            const std::int64_t oj = o_rest % out[j], qj = q_rest % window[j];
            o_rest /= out[j];
            q_rest /= window[j];
            in_index[j] = oj * stride[j] + qj - before[j];
            inside = inside && in_index[j] >= 0 && in_index[j] < size[j];
          }
          if (!inside) continue;
          for (int j = n - 1; j >= 0; --j) {
            i += in_index[j] * stride_in;
            stride_in *= size[j];
          }
          visit(b, o, q, i);
        }
      }
    }
  }
};

std::vector<double> reference_conv(const Geometry& g, const std::vector<float>& x,
                                   const std::vector<float>& f) {
  std::vector<double> y(g.batch * g.count(g.out) * g.out_channels, 0.0);
  g.for_each_tap([&](std::int64_t b, std::int64_t o, std::int64_t q, std::int64_t i) {
    for (std::int64_t c = 0; c < g.channels; ++c) {
      for (std::int64_t k = 0; k < g.out_channels; ++k) {
        y[(b * g.count(g.out) + o) * g.out_channels + k] +=
            double(x[(b * g.count(g.size) + i) * g.channels + c]) *
            f[(q * g.channels + c) * g.out_channels + k];
      }
    }
  });
  return y;
}

std::vector<double> reference_conv_transpose(const Geometry& g, const std::vector<float>& dy,
                                             const std::vector<float>& f) {
  std::vector<double> dx(g.batch * g.count(g.size) * g.channels, 0.0);
  g.for_each_tap([&](std::int64_t b, std::int64_t o, std::int64_t q, std::int64_t i) {
    for (std::int64_t c = 0; c < g.channels; ++c) {
      for (std::int64_t k = 0; k < g.out_channels; ++k) {
        dx[(b * g.count(g.size) + i) * g.channels + c] +=
            double(dy[(b * g.count(g.out) + o) * g.out_channels + k]) *
            f[(q * g.channels + c) * g.out_channels + k];
      }
    }
  });
  return dx;
}

std::vector<double> reference_filter_gradient(const Geometry& g, const std::vector<float>& x,
                                              const std::vector<float>& dy) {
  std::vector<double> df(g.count(g.window) * g.channels * g.out_channels, 0.0);
  g.for_each_tap([&](std::int64_t b, std::int64_t o, std::int64_t q, std::int64_t i) {
    for (std::int64_t c = 0; c < g.channels; ++c) {
      for (std::int64_t k = 0; k < g.out_channels; ++k) {
        df[(q * g.channels + c) * g.out_channels + k] +=
            double(x[(b * g.count(g.size) + i) * g.channels + c]) *
            dy[(b * g.count(g.out) + o) * g.out_channels + k];
      }
    }
  });
  return df;
}

// Pooling and, for weights w, the gradient of sum(pool(x) * w) with respect to x.
std::pair<std::vector<double>, std::vector<double>> reference_pool(const Geometry& g, PoolKind kind,
                                                                   const std::vector<float>& x,
                                                                   const std::vector<float>& w) {
  const std::int64_t outs = g.batch * g.count(g.out) * g.channels;
  std::vector<double> y(outs, kind == PoolKind::max ? -std::numeric_limits<double>::infinity() : 0.0);
  std::vector<std::int64_t> arg(outs, -1), taps(outs, 0);
  g.for_each_tap([&](std::int64_t b, std::int64_t o, std::int64_t, std::int64_t i) {
    for (std::int64_t c = 0; c < g.channels; ++c) {
      const std::int64_t at = (b * g.count(g.out) + o) * g.channels + c,
                         from = (b * g.count(g.size) + i) * g.channels + c;
      ++taps[at];
      if (kind == PoolKind::average) {
        y[at] += x[from];
      } else if (x[from] > y[at]) {
        y[at] = x[from];
        arg[at] = from;
      }
    }
  });
  std::vector<double> dx(x.size(), 0.0);
  if (kind == PoolKind::max) {
    for (std::int64_t at = 0; at < outs; ++at) dx[arg[at]] += w[at];
  } else {
    for (std::int64_t at = 0; at < outs; ++at) y[at] /= double(taps[at]);
    g.for_each_tap([&](std::int64_t b, std::int64_t o, std::int64_t, std::int64_t i) {
      for (std::int64_t c = 0; c < g.channels; ++c) {
        const std::int64_t at = (b * g.count(g.out) + o) * g.channels + c;
        dx[(b * g.count(g.size) + i) * g.channels + c] += w[at] / double(taps[at]);
      }
    });
  }
  return {y, dx};
}

void check_close(const std::vector<float>& got, const std::vector<double>& want, const std::string& what) {
  INFO(what);
  REQUIRE(got.size() == want.size());
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]) / (1e-4 + 1e-4 * std::abs(want[i])));
  CHECK(worst <= 1.0);
}

struct Case {
  Geometry geometry;
  Padding padding;
  std::string mesh, layout;
};

std::vector<Dimension> image_dims(const Geometry& g, const std::vector<std::int64_t>& spatial,
                                  std::int64_t last, const char* last_name) {
  static const char* names[] = {"h", "w", "d"};
  std::vector<Dimension> dims = {Dimension("batch", g.batch)};
  for (std::size_t j = 0; j < spatial.size(); ++j) dims.emplace_back(names[j], spatial[j]);
  dims.emplace_back(last_name, last);
  return dims;
}

// conv, conv_transpose and conv_filter_gradient of one case, and max and average pooling with their
// gradients, against the loops.
void check_case(const Case& c, std::uint64_t seed) {
  const Geometry& g = c.geometry;
  Graph graph(seed);
  const Shape x_shape(image_dims(g, g.size, g.channels, "ci")),
      y_shape(image_dims(g, g.out, g.out_channels, "co"));
  std::vector<Dimension> filter_dims;
  static const char* window_names[] = {"kh", "kw", "kd"};
  for (std::size_t j = 0; j < g.window.size(); ++j) filter_dims.emplace_back(window_names[j], g.window[j]);
  filter_dims.emplace_back("ci", g.channels);
  filter_dims.emplace_back("co", g.out_channels);
  const Shape f_shape(filter_dims), pooled_shape(image_dims(g, g.out, g.channels, "ci"));
  const Tensor x = graph.input("x", x_shape), f = graph.input("f", f_shape), dy = graph.input("dy", y_shape);
  const Tensor pool_weights = graph.input("pool_weights", pooled_shape);
  const Tensor y = conv(x, f, g.stride, c.padding);
  const Tensor dx = conv_transpose(dy, f, x_shape, g.stride, c.padding);
  const Tensor df = conv_filter_gradient(x, dy, f_shape, g.stride, c.padding);
  const Tensor max_pooled = max_pool(x, g.window, g.stride, c.padding);
  const Tensor avg_pooled = avg_pool(x, g.window, g.stride, c.padding);
  const Tensor objective = add(reduce_sum(mul(max_pooled, pool_weights), Shape{}),
                               reduce_sum(mul(avg_pooled, pool_weights), Shape{}));
  const Tensor pool_dx = gradients(objective, {x})[0];

  const auto x_values = random_values(x_shape.num_elements(), seed + 1);
  const auto f_values = random_values(f_shape.num_elements(), seed + 2, 0.5f);
  const auto dy_values = random_values(y_shape.num_elements(), seed + 3);
  const auto w_values = random_values(pooled_shape.num_elements(), seed + 4);
  const auto mesh = MeshShape::parse(c.mesh);
  Executor executor(graph, mesh, rules_for(c.layout, mesh), nullptr);
  executor.feed(x, x_values);
  executor.feed(f, f_values);
  executor.feed(dy, dy_values);
  executor.feed(pool_weights, w_values);
  const auto fetched = executor.run({y, dx, df, max_pooled, avg_pooled, pool_dx}).fetched;

  const auto [max_y, max_dx] = reference_pool(g, PoolKind::max, x_values, w_values);
  const auto [avg_y, avg_dx] = reference_pool(g, PoolKind::average, x_values, w_values);
  std::vector<double> both_dx(max_dx.size());
  for (std::size_t i = 0; i < both_dx.size(); ++i) both_dx[i] = max_dx[i] + avg_dx[i];
  const std::string where = "x " + x_shape.to_string() + " window " + f_shape.to_string() + " stride " +
                            std::to_string(g.stride[0]) + " " + to_string(c.padding) + " on mesh '" + c.mesh +
                            "' layout '" + c.layout + "'";
  check_close(fetched[0], reference_conv(g, x_values, f_values), "conv of " + where);
  check_close(fetched[1], reference_conv_transpose(g, dy_values, f_values), "conv_transpose of " + where);
  check_close(fetched[2], reference_filter_gradient(g, x_values, dy_values),
              "conv_filter_gradient of " + where);
  check_close(fetched[3], max_y, "max_pool of " + where);
  check_close(fetched[4], avg_y, "avg_pool of " + where);
  check_close(fetched[5], both_dx, "pool gradients of " + where);
}

}  // namespace

TEST_CASE("window ops equal plain loops for kernels 1 to 7 and strides 1 and 2 under every kind of split") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> meshes = {
      {"", {""}},
      {"a:2;b:2", {"h:a;w:b", "batch:a;h:b", "ci:a;w:b", "co:a;h:b", "h:a;co:b", "ci:a;co:b"}},
      {"a:4", {"h:a", "ci:a", "co:a"}},
      {"a:2;b:2;c:2", {"batch:a;h:b;w:c", "h:a;w:b;ci:c"}}};
  std::uint64_t seed = 100;
  for (const std::int64_t window : {1, 3, 5, 7}) {
    for (const std::int64_t stride : {1, 2}) {
      const Geometry g(2, {16, 8}, {window, window}, {stride, stride}, Padding::same, 4, 4);
      for (const auto& [mesh, layouts] : meshes) {
        for (const auto& layout : layouts) check_case({g, Padding::same, mesh, layout}, seed++);
      }
    }
  }
}

// Valid padding: tiles align only when the stride equals the window; otherwise the spatial dim is gathered
// before the windows are taken, and the results are the same.
TEST_CASE("window ops with valid padding equal plain loops, split or not") {
  struct Valid {
    std::int64_t window, stride;
  };
  std::uint64_t seed = 300;
  for (const Valid v : {Valid{2, 2}, Valid{3, 1}, Valid{5, 1}, Valid{5, 2}, Valid{7, 1}}) {
    const Geometry g(2, {16, 8}, {v.window, v.window}, {v.stride, v.stride}, Padding::valid, 4, 2);
    for (const std::string layout : {"", "h:a", "w:a", "batch:a", "ci:a"})
      check_case({g, Padding::valid, "a:2", layout}, seed++);
  }
}

TEST_CASE("randomised window ops in one to three spatial dims equal plain loops") {
  const std::vector<std::string> meshes = {"a:2", "a:2;b:2", "a:4", "a:2;b:3", "a:3;b:2;c:2"};
  for (std::uint64_t trial = 0; trial < 40; ++trial) {
    const auto pick = [&](std::uint64_t what, std::int64_t n) {
      return static_cast<std::int64_t>(uniform01(7, trial * 16 + what) * n);
    };
    const int n = 1 + static_cast<int>(pick(0, 3));
    const auto mesh = MeshShape::parse(meshes[pick(1, meshes.size())]);
    const Padding padding = pick(2, 2) == 0 ? Padding::same : Padding::valid;
    // Each mesh dim splits one dim (or none); "same" padding lets spatial dims split with halos.
    std::vector<std::string> names = {"batch", "ci", "co"};
    if (padding == Padding::same) {
      for (int j = 0; j < n; ++j) names.push_back(std::vector<std::string>{"h", "w", "d"}[j]);
    }
    std::string layout;
    std::map<std::string, std::int64_t> parts;
    for (int m = 0; m < mesh.rank(); ++m) {
      const std::string& name = names[pick(3 + m, names.size())];
      if (parts.count(name) != 0) continue;
      parts[name] = mesh.dim_size(m);
      layout += (layout.empty() ? "" : ";") + name + ":" + mesh.dim_name(m);
    }
    const auto parts_of = [&](const std::string& name) { return parts.count(name) != 0 ? parts[name] : 1; };
    std::vector<std::int64_t> size, window, stride;
    for (int j = 0; j < n; ++j) {
      stride.push_back(1 + pick(6 + j, 2));
      window.push_back(1 + pick(9 + j, 7 - (n == 3 ? 2 : 0)));
      const std::int64_t split = parts_of(std::vector<std::string>{"h", "w", "d"}[j]);
      // Tiles of at least 4 strides cover any halo of a window up to 7.
      std::int64_t s = stride[j] * split * (4 + pick(12 + j, 2));
      if (n == 3 && split == 1) s = std::max<std::int64_t>(window[j], 3 + pick(12 + j, 3));
      size.push_back(std::max(s, window[j]));
    }
    const Geometry g(parts_of("batch") * (1 + pick(13, 2)), size, window, stride, padding,
                     parts_of("ci") * (1 + pick(14, 3)), parts_of("co") * (1 + pick(15, 3)));
    INFO("trial " << trial << ", " << n << " spatial dims, layout " << layout);
    check_case({g, padding, mesh.to_string(), layout}, 500 + trial);
  }
}

// Halo rows: along h, (before + after) rows of a tile [b, w/q, c]; along w, after h's halos are in,
// (before + after) columns of [b, h/p + before_h + after_h, c], corners included.
TEST_CASE("halo counters equal their closed form") {
  struct HaloCase {
    std::int64_t window, stride, before, after;
  };
  const std::int64_t batch = 2, h = 32, w = 16, channels = 3, p = 2, q = 4;
  for (const HaloCase c :
       {HaloCase{5, 1, 2, 2}, HaloCase{3, 2, 0, 1}, HaloCase{7, 2, 2, 3}, HaloCase{1, 1, 0, 0}}) {
    Graph graph(1);
    const Dimension b("batch", batch), ci("ci", channels);
    const Tensor x = graph.input("x", {b, Dimension("h", h), Dimension("w", w), ci});
    const Tensor f =
        graph.input("f", {Dimension("kh", c.window), Dimension("kw", c.window), ci, Dimension("co", 2)});
    conv(x, f, {c.stride, c.stride}, Padding::same, "y");
    const auto mesh = MeshShape::parse("a:2;b:4");
    Executor executor(graph, mesh, LayoutRules::parse("h:a;w:b"), nullptr);
    auto counters = executor.counters().by_key();
    INFO("window " << c.window << " stride " << c.stride);
    CHECK(counters["permute/a/halo"] == std::uint64_t((c.before + c.after) * batch * (w / q) * channels));
    CHECK(counters["permute/b/halo"] ==
          std::uint64_t((c.before + c.after) * batch * (h / p + c.before + c.after) * channels));
    std::size_t permutes = 0;
    for (const auto& record : executor.counters().collectives) permutes += record.reason == "halo";
    CHECK(permutes == std::size_t((c.before > 0) + (c.after > 0)) * 2);
  }
}

TEST_CASE("bad window ops are one clear InputError") {
  Graph graph(1);
  const Dimension b("batch", 2), h("h", 16), w("w", 8), ci("ci", 3), co("co", 4);
  const Tensor x = graph.input("x", {b, h, w, ci});
  const Tensor f7 = graph.input("f7", {Dimension("kh", 7), Dimension("kw", 1), ci, co});
  conv(x, f7, {1, 1}, Padding::same, "wide");
  const auto mesh = MeshShape::parse("a:8");
  CHECK_THROWS_WITH(
      Executor(graph, mesh, LayoutRules::parse("h:a"), nullptr),
      Catch::Contains("conv 'wide': 'h' is split over mesh dimension 'a' into tiles of 2 rows") &&
          Catch::Contains("reaches 3 rows into the tile before and 3 into the tile after"));
  const Tensor wrong = graph.input("wrong", {Dimension("kh", 3), Dimension("kw", 3), Dimension("cj", 3), co});
  CHECK_THROWS_WITH(conv(x, wrong, {1, 1}, Padding::same, "c"),
                    Catch::Contains("its in_channels cj:3 is not the image's last dim ci:3"));
  CHECK_THROWS_WITH(conv(x, f7, {0, 1}, Padding::same, "c"),
                    Catch::Contains("the window is 7 and the stride 0"));
  CHECK_THROWS_WITH(conv(x, f7, {1}, Padding::same, "c"), Catch::Contains("the filter"));
  const Tensor scalar = graph.input("scalar", Shape{});
  CHECK_THROWS_WITH(conv(scalar, f7, {1, 1}, Padding::same, "c"), Catch::Contains("the image has 0 dims"));
  CHECK_THROWS_WITH(avg_pool(scalar, {1}, {1}, Padding::same, "p"), Catch::Contains("needs 1 spatial dims"));
  CHECK_THROWS_WITH(max_pool(x, {3, 9}, {1, 1}, Padding::valid, "p"),
                    Catch::Contains("a window of 9 does not fit in 'w' of size 8 with valid padding"));
  CHECK_THROWS_WITH(max_pool(x, {3, 3, 3, 3}, {1, 1, 1, 1}, Padding::same, "p"),
                    Catch::Contains("takes 1 to 3 spatial dims"));
  CHECK_THROWS_WITH(conv_transpose(x, f7, Shape{b, h, w, ci}, {2, 2}, Padding::same, "t"),
                    Catch::Contains("conv_transpose 't': 'x' has shape"));
}

// Statistics per channel over batch and space, whichever of them are split.
TEST_CASE("batch_norm equals plain loops under batch, spatial and channel splits") {
  const std::int64_t batch = 4, h = 8, w = 6, channels = 4;
  const double epsilon = 1e-3;
  const auto x_values = random_values(batch * h * w * channels, 41, 2.0f);
  const auto scale_values = random_values(channels, 42), bias_values = random_values(channels, 43);
  std::vector<double> want(x_values.size());
  for (std::int64_t c = 0; c < channels; ++c) {
    double sum = 0, squares = 0;
    const std::int64_t count = batch * h * w;
    for (std::int64_t i = 0; i < count; ++i) sum += x_values[i * channels + c];
    const double mean = sum / double(count);
    for (std::int64_t i = 0; i < count; ++i) squares += std::pow(x_values[i * channels + c] - mean, 2);
    const double inverse_deviation = 1 / std::sqrt(squares / double(count) + epsilon);
    for (std::int64_t i = 0; i < count; ++i) {
      want[i * channels + c] =
          (x_values[i * channels + c] - mean) * inverse_deviation * scale_values[c] + bias_values[c];
    }
  }
  for (const auto& [mesh_text, layout] :
       std::vector<std::pair<std::string, std::string>>{{"", ""},
                                                        {"a:2;b:2", "batch:a;h:b"},
                                                        {"a:2;b:2", "h:a;w:b"},
                                                        {"a:2;b:2", "c:a;h:b"},
                                                        {"a:4", "batch:a"}}) {
    Graph graph(1);
    const Dimension c("c", channels);
    const Tensor x = graph.input("x", {Dimension("batch", batch), Dimension("h", h), Dimension("w", w), c});
    const Tensor scale = graph.input("scale", {c}), bias = graph.input("bias", {c});
    const Tensor y = batch_norm(x, scale, bias, epsilon);
    const auto mesh = MeshShape::parse(mesh_text);
    Executor executor(graph, mesh, rules_for(layout, mesh), nullptr);
    executor.feed(x, x_values);
    executor.feed(scale, scale_values);
    executor.feed(bias, bias_values);
    check_close(executor.run({y}).fetched[0], want,
                "batch_norm on mesh '" + mesh_text + "' layout '" + layout + "'");
  }
}
