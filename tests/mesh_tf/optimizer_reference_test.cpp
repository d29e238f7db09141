// Every optimizer against a double-precision reference written here from its published update rule, with the
// gradients fed directly (loss = sum(w * G), so d loss / d w = G): zero, partly zero (unused rows, MoE
// experts that got no token), tiny, ordinary and large gradients, on one core and on a 2x2 mesh.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/optimizer.hpp"

using namespace tpusim::mtf;

namespace {

// Row-major [outer..., rows, cols] (rank 3), [rows, cols] (rank 2) or [n] (rank 1) in double.
struct Shape3 {
  std::int64_t outer = 1, rows = 1, cols = 1;
  int rank = 2;
  std::int64_t elements() const { return outer * rows * cols; }
  Shape engine() const {
    if (rank == 1) return Shape{Dimension("n", cols)};
    if (rank == 2) return Shape{Dimension("rows", rows), Dimension("cols", cols)};
    return Shape{Dimension("outer", outer), Dimension("rows", rows), Dimension("cols", cols)};
  }
};

// The update rules, as optimizer.hpp documents them (Adam: Kingma & Ba 2015 with the bias correction folded
// into the step size; Adafactor: Shazeer & Stern 2018 as Mesh-TensorFlow's AdafactorOptimizer, factored over
// the last two dims, constant decay, update clipping).
class ReferenceOptimizer {
 public:
  ReferenceOptimizer(const OptimizerConfig& config, const Shape3& shape)
      : config_(config),
        shape_(shape),
        m_(shape.elements()),
        v_(shape.elements()),
        vr_(shape.outer * shape.rows),
        vc_(shape.outer * shape.cols) {}

  void step(std::vector<double>& w, const std::vector<double>& g) {
    const double lr = config_.learning_rate;
    switch (config_.kind) {
      case OptimizerConfig::Kind::sgd:
        for (std::size_t i = 0; i < w.size(); ++i) w[i] -= lr * g[i];
        return;
      case OptimizerConfig::Kind::adam: {
        ++t_;
        const double correction =
            std::sqrt(1 - std::pow(config_.beta2, t_)) / (1 - std::pow(config_.beta1, t_));
        for (std::size_t i = 0; i < w.size(); ++i) {
          m_[i] = config_.beta1 * m_[i] + (1 - config_.beta1) * g[i];
          v_[i] = config_.beta2 * v_[i] + (1 - config_.beta2) * g[i] * g[i];
          w[i] -= lr * correction * m_[i] / (std::sqrt(v_[i]) + config_.epsilon);
        }
        return;
      }
      case OptimizerConfig::Kind::adafactor:
        adafactor(w, g);
        return;
      case OptimizerConfig::Kind::momentum:
      case OptimizerConfig::Kind::lars:
      case OptimizerConfig::Kind::lamb:
        FAIL("mlperf_optimizers_test.cpp has the reference of momentum, LARS and LAMB");
    }
  }

 private:
  void adafactor(std::vector<double>& w, const std::vector<double>& g) {
    const double d = config_.decay;
    const auto R = shape_.rows, C = shape_.cols;
    std::vector<double> x(w.size());
    if (shape_.rank == 1) {
      for (std::size_t i = 0; i < w.size(); ++i) {
        v_[i] = d * v_[i] + (1 - d) * (g[i] * g[i] + config_.epsilon1);
        x[i] = g[i] / std::sqrt(v_[i]);
      }
    } else {
      for (std::int64_t o = 0; o < shape_.outer; ++o) {
        auto g2 = [&](std::int64_t r, std::int64_t c) {
          const double v = g[(o * R + r) * C + c];
          return v * v + config_.epsilon1;
        };
        for (std::int64_t r = 0; r < R; ++r) {
          double mean = 0;
          for (std::int64_t c = 0; c < C; ++c) mean += g2(r, c) / static_cast<double>(C);
          vr_[o * R + r] = d * vr_[o * R + r] + (1 - d) * mean;
        }
        for (std::int64_t c = 0; c < C; ++c) {
          double mean = 0;
          for (std::int64_t r = 0; r < R; ++r) mean += g2(r, c) / static_cast<double>(R);
          vc_[o * C + c] = d * vc_[o * C + c] + (1 - d) * mean;
        }
        double row_mean = 0;
        for (std::int64_t r = 0; r < R; ++r) row_mean += vr_[o * R + r] / static_cast<double>(R);
        for (std::int64_t r = 0; r < R; ++r) {
          for (std::int64_t c = 0; c < C; ++c) {
            const std::int64_t i = (o * R + r) * C + c;
            x[i] = g[i] / std::sqrt(vr_[o * R + r] / row_mean * vc_[o * C + c]);
          }
        }
      }
    }
    double mean_square = 0;
    for (const double v : x) mean_square += v * v / static_cast<double>(x.size());
    const double clip = std::max(1.0, std::sqrt(mean_square) / config_.clipping_threshold);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] -= config_.learning_rate * x[i] / clip;
  }

  OptimizerConfig config_;
  Shape3 shape_;
  std::vector<double> m_, v_, vr_, vc_;
  int t_ = 0;
};

enum class Regime { zero, unused_rows, tiny, tinier, ordinary, large };
const char* to_string(Regime regime) {
  const char* names[] = {"zero", "unused rows", "tiny (1e-7)", "tinier (1e-20)", "ordinary", "large (1e3)"};
  return names[static_cast<int>(regime)];
}

std::vector<float> gradient(Regime regime, const Shape3& shape, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::vector<float> g(shape.elements());
  const double scale = regime == Regime::tiny     ? 1e-7
                       : regime == Regime::tinier ? 1e-20
                       : regime == Regime::large  ? 1e3
                                                  : 1;
  for (std::int64_t i = 0; i < shape.elements(); ++i) {
    const std::int64_t row = shape.rank == 1 ? i : (i / shape.cols) % shape.rows;
    const bool zero = regime == Regime::zero || (regime == Regime::unused_rows && row % 2 == 1);
    g[i] = zero ? 0.0f : static_cast<float>(scale * normal(rng));
  }
  return g;
}

void check_optimizer(const OptimizerConfig& config, const Shape3& shape, Regime regime,
                     const std::string& mesh, const std::string& layout) {
  INFO("optimizer " << static_cast<int>(config.kind) << ", variable " << shape.engine().to_string()
                    << ", gradients " << to_string(regime) << ", mesh '" << mesh << "' layout '" << layout
                    << "'");
  Graph graph(9);
  const Tensor w = graph.variable("w", shape.engine(), Initializer::normal(1));
  const Tensor g = graph.input("g", shape.engine());
  Optimizer optimizer(config);
  optimizer.minimize(graph, reduce_sum(mul(w, g), Shape{}));
  Executor executor(graph, MeshShape::parse(mesh), LayoutRules::parse(layout), nullptr);
  const auto initial = executor.variable_value(w);
  std::vector<double> expected(initial.begin(), initial.end());
  ReferenceOptimizer reference(config, shape);
  // fp32 keeps about 7 digits of the largest value an element took: after a large step and back, the error
  // is relative to that peak, not to the final value.
  std::vector<double> peak(expected.size());
  for (std::size_t i = 0; i < peak.size(); ++i) peak[i] = std::abs(expected[i]);
  std::mt19937_64 rng(17);
  for (int step = 0; step < 3; ++step) {
    const auto grad = gradient(regime, shape, rng);
    executor.feed(g, grad);
    executor.run();
    reference.step(expected, std::vector<double>(grad.begin(), grad.end()));
    const auto actual = executor.variable_value(w);
    for (std::size_t i = 0; i < actual.size(); ++i) {
      peak[i] = std::max(peak[i], std::abs(expected[i]));
      INFO("step " << step << " element " << i << ": engine " << actual[i] << ", reference " << expected[i]);
      REQUIRE(std::isfinite(actual[i]));
      REQUIRE(std::abs(actual[i] - expected[i]) <= 1e-6 + 1e-5 * peak[i]);
    }
  }
}

}  // namespace

TEST_CASE("sgd, adam and adafactor follow the reference update for every gradient regime") {
  const OptimizerConfig configs[] = {Optimizer::sgd(0.1).config(), Optimizer::adam(0.05).config(),
                                     Optimizer::adafactor(0.05).config()};
  const Shape3 shapes[] = {{1, 1, 8, 1}, {1, 4, 6, 2}, {2, 4, 6, 3}};
  for (const auto& config : configs) {
    for (const auto& shape : shapes) {
      for (const Regime regime : {Regime::zero, Regime::unused_rows, Regime::tiny, Regime::tinier,
                                  Regime::ordinary, Regime::large}) {
        check_optimizer(config, shape, regime, "", "");
        const std::string layout = shape.rank == 1 ? "n:a" : "rows:a;cols:b";
        check_optimizer(config, shape, regime, "a:2;b:2", layout);
      }
    }
  }
}

TEST_CASE("adafactor leaves a variable the loss does not use unchanged and finite") {
  Graph graph(2);
  const Tensor used = graph.variable("used", Shape{{"rows", 4}, {"cols", 4}}, Initializer::normal(1));
  const Tensor unused = graph.variable("unused", Shape{{"rows", 4}, {"cols", 4}}, Initializer::normal(1));
  Optimizer::adafactor(0.1).minimize(graph, reduce_sum(square(used), Shape{}));
  Executor executor(graph, MeshShape::parse(""), LayoutRules(), nullptr);
  const auto before = executor.variable_value(unused);
  for (int step = 0; step < 3; ++step) executor.run();
  CHECK(executor.variable_value(unused) == before);
}
