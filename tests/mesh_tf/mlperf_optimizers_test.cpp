// Momentum, LARS and LAMB (mesh_tf/mlperf_optimizers.hpp) against double-precision loops of their update
// rules written here, with the gradients fed directly (loss = sum(w * G), so d loss / d w = G). Three
// variables: a kernel w [rows, cols], a zero-initialised kernel z (its weight norm is 0, so its trust ratio
// must be 1, not 0/0) and a rank-1 "dense/bias" that LARS and LAMB skip. One step feeds w a zero gradient
// (a zero gradient norm). Each optimizer runs on one core, on a 2x2 mesh that splits every variable (its
// norms need an allreduce over both axes) and with weight-update sharding (the norms of the update shard).
#include "mesh_tf/mlperf_optimizers.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/optimizer.hpp"

using namespace tpusim::mtf;

namespace {

const Dimension kRows("rows", 4), kCols("cols", 6);
const Shape kKernel{kRows, kCols};
const Shape kBias{kCols};

double norm(const std::vector<double>& x) {
  double sum = 0;
  for (const double v : x) sum += v * v;
  return std::sqrt(sum);
}

// One variable's reference state and the three update rules, as mlperf_optimizers.hpp states them.
class Reference {
 public:
  Reference(const OptimizerConfig& config, std::vector<double> w, bool skipped)
      : c_(config), w_(std::move(w)), skipped_(skipped), a_(w_.size()), v_(w_.size()) {}
  const std::vector<double>& w() const { return w_; }

  void step(const std::vector<double>& g) {
    const double lr = c_.learning_rate;
    std::vector<double> r(w_.size());
    switch (c_.kind) {
      case OptimizerConfig::Kind::momentum:  // a = momentum a + g; w -= lr a
        for (std::size_t i = 0; i < w_.size(); ++i) {
          a_[i] = c_.momentum * a_[i] + g[i];
          w_[i] -= lr * a_[i];
        }
        return;
      case OptimizerConfig::Kind::lars: {  // a = momentum a + lr trust (g + wd w); w -= a
        double trust = 1, wd = 0;
        if (!skipped_) {
          wd = c_.lars_weight_decay;
          const double wn = norm(w_), gn = norm(g);
          if (wn > 0 && gn > 0) trust = c_.lars_eta * wn / (gn + wd * wn + c_.lars_epsilon);
        }
        for (std::size_t i = 0; i < w_.size(); ++i) {
          a_[i] = c_.momentum * a_[i] + lr * trust * (g[i] + wd * w_[i]);
          w_[i] -= a_[i];
        }
        return;
      }
      case OptimizerConfig::Kind::lamb: {  // r = m_hat / (sqrt(v_hat) + eps) + wd w; w -= lr (|w| / |r|) r
        ++t_;
        for (std::size_t i = 0; i < w_.size(); ++i) {
          a_[i] = c_.beta1 * a_[i] + (1 - c_.beta1) * g[i];
          v_[i] = c_.beta2 * v_[i] + (1 - c_.beta2) * g[i] * g[i];
          const double m_hat = a_[i] / (1 - std::pow(c_.beta1, t_));
          const double v_hat = v_[i] / (1 - std::pow(c_.beta2, t_));
          r[i] = m_hat / (std::sqrt(v_hat) + c_.lamb_epsilon) + (skipped_ ? 0 : c_.lamb_weight_decay * w_[i]);
        }
        double ratio = 1;
        const double wn = norm(w_), rn = norm(r);
        if (!skipped_ && wn > 0 && rn > 0) ratio = wn / rn;
        for (std::size_t i = 0; i < w_.size(); ++i) w_[i] -= lr * ratio * r[i];
        return;
      }
      default:
        FAIL("not an MLPerf optimizer");
    }
  }

 private:
  OptimizerConfig c_;
  std::vector<double> w_;
  bool skipped_;
  std::vector<double> a_, v_;  // momentum accumulator or LAMB's m; LAMB's v
  int t_ = 0;
};

struct Setup {
  std::string mesh, layout;
  bool sharded = false;  // weight-update sharding over mesh axis "a" (size 2): both split along cols
};

struct Run {
  std::vector<std::vector<float>> values;  // w, z, bias after every step, in that order
  Counters counters;
};

std::vector<float> random_vector(std::size_t n, std::mt19937_64& rng, double scale) {
  std::normal_distribution<double> normal;
  std::vector<float> out(n);
  for (auto& v : out) v = static_cast<float>(scale * normal(rng));
  return out;
}

// The gradients of step `step` for w, z and the bias (the same for every setup).
std::vector<std::vector<float>> gradients(int step) {
  std::mt19937_64 rng(100 + step);
  auto gw = random_vector(24, rng, 1);
  if (step == 1) gw.assign(24, 0.0f);
  return {gw, random_vector(24, rng, 0.5), random_vector(6, rng, 2)};
}

constexpr int kSteps = 3;

Run train(const OptimizerConfig& config, const Setup& setup, std::vector<std::vector<double>>* initial) {
  Graph graph(4);
  const Tensor w = graph.variable("w", kKernel, Initializer::normal(1));
  const Tensor z = graph.variable("z", kKernel, Initializer::zeros());
  const Tensor b = graph.variable("dense/bias", kBias, Initializer::normal(0.1f));
  const Tensor gw = graph.input("gw", kKernel), gz = graph.input("gz", kKernel),
               gb = graph.input("gb", kBias);
  const Tensor loss = add(add(reduce_sum(mul(w, gw), Shape{}), reduce_sum(mul(z, gz), Shape{})),
                          reduce_sum(mul(b, gb), Shape{}));
  Optimizer optimizer(config);
  LayoutRules rules = LayoutRules::parse(setup.layout);
  if (setup.sharded) optimizer.shard_updates({"a", 2, rules});
  optimizer.minimize(graph, loss);
  if (setup.sharded) rules = optimizer.sharded_rules();
  Executor executor(graph, MeshShape::parse(setup.mesh), rules, nullptr);
  const std::vector<Tensor> variables{w, z, b};
  if (initial) {
    initial->clear();
    for (const auto& v : variables) {
      const auto values = executor.variable_value(v);
      initial->emplace_back(values.begin(), values.end());
    }
  }
  Run run;
  for (int step = 0; step < kSteps; ++step) {
    const auto g = gradients(step);
    executor.feed(gw, g[0]);
    executor.feed(gz, g[1]);
    executor.feed(gb, g[2]);
    executor.run();
    for (const auto& v : variables) run.values.push_back(executor.variable_value(v));
  }
  run.counters = executor.counters();
  return run;
}

// Runs `config` on every setup against the reference, and the split runs against the one-core run.
void check(const OptimizerConfig& config) {
  const Setup single{"", ""};
  std::vector<std::vector<double>> initial;
  const Run one_core = train(config, single, &initial);
  std::vector<Reference> reference;
  for (std::size_t v = 0; v < initial.size(); ++v) reference.emplace_back(config, initial[v], v == 2);
  const char* names[] = {"w", "z", "dense/bias"};
  for (const Setup& setup : {single, Setup{"a:2;b:2", "rows:a;cols:b"}, Setup{"a:2", "", true}}) {
    INFO("optimizer " << static_cast<int>(config.kind) << " lr " << config.learning_rate << ", mesh '"
                      << setup.mesh << "' layout '" << setup.layout << "'"
                      << (setup.sharded ? " with weight-update sharding" : ""));
    const Run run = setup.mesh.empty() ? one_core : train(config, setup, nullptr);
    std::vector<Reference> expected = reference;
    std::vector<double> peak(3, 0);
    for (std::size_t v = 0; v < 3; ++v)
      for (const double x : initial[v]) peak[v] = std::max(peak[v], std::abs(x));
    for (int step = 0; step < kSteps; ++step) {
      const auto g = gradients(step);
      for (std::size_t v = 0; v < 3; ++v) {
        expected[v].step(std::vector<double>(g[v].begin(), g[v].end()));
        const auto& actual = run.values[step * 3 + v];
        const auto& alone = one_core.values[step * 3 + v];
        for (const double x : expected[v].w()) peak[v] = std::max(peak[v], std::abs(x));
        for (std::size_t i = 0; i < actual.size(); ++i) {
          INFO("step " << step << " " << names[v] << "[" << i << "]: engine " << actual[i] << ", one core "
                       << alone[i] << ", reference " << expected[v].w()[i]);
          REQUIRE(std::isfinite(actual[i]));
          REQUIRE(std::abs(actual[i] - expected[v].w()[i]) <= 1e-6 + 1e-5 * peak[v]);
          REQUIRE(std::abs(actual[i] - alone[i]) <= 1e-7 + 2e-6 * peak[v]);
        }
      }
    }
  }
}

// Allreduces of one element per core over exactly mesh dims a and b that reduce `tensor` (the partial sums
// of squares; the lowering issues them where the square root reads them).
int scalar_allreduces(const Counters& counters, const std::string& tensor) {
  int count = 0;
  for (const auto& c : counters.collectives) {
    if (c.tensor == tensor && c.kind == tpusim::sim::CollectiveKind::allreduce && c.elements_per_core == 1 &&
        c.mesh_dims == std::vector<std::string>{"a", "b"})
      ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("momentum follows TensorFlow's MomentumOptimizer on one core, split and sharded") {
  check(Optimizer::momentum(0.1).config());
  OptimizerConfig light = Optimizer::momentum(0.05).config();
  light.momentum = 0.5;
  check(light);
}

TEST_CASE("LARS follows the MLPerf ResNet rule, skipping the bias, on one core, split and sharded") {
  check(Optimizer::lars(10).config());  // 10: lars_util.py's base rate for batches under 16K
  OptimizerConfig other = Optimizer::lars(3).config();
  other.momentum = 0.8;
  other.lars_eta = 0.01;
  other.lars_weight_decay = 5e-3;
  other.lars_epsilon = 1e-5;
  check(other);
}

TEST_CASE("LAMB follows the MLPerf v0.7 BERT rule, skipping the bias, on one core, split and sharded") {
  check(Optimizer::lamb(0.05).config());
  OptimizerConfig other = Optimizer::lamb(0.02).config();
  other.beta1 = 0.8;
  other.beta2 = 0.95;
  other.lamb_epsilon = 1e-3;
  other.lamb_weight_decay = 0.1;
  check(other);
}

TEST_CASE("the trust-ratio norms of a split variable are allreduced over the axes that split it") {
  for (const auto& optimizer : {Optimizer::lars(1), Optimizer::lamb(0.1)}) {
    const bool lars = optimizer.config().kind == OptimizerConfig::Kind::lars;
    const Run run = train(optimizer.config(), Setup{"a:2;b:2", "rows:a;cols:b"}, nullptr);
    INFO((lars ? "lars" : "lamb"));
    const std::string weight_norm = lars ? "w/lars_weight_norm_squared" : "w/lamb_weight_norm_squared";
    const std::string other_norm = lars ? "w/lars_grad_norm_squared" : "w/lamb_update_norm_squared";
    CHECK(scalar_allreduces(run.counters, weight_norm) == 1);
    CHECK(scalar_allreduces(run.counters, other_norm) == 1);
    // The skipped bias has no norm at all.
    CHECK(scalar_allreduces(run.counters, lars ? "dense/bias/lars_weight_norm_squared"
                                               : "dense/bias/lamb_weight_norm_squared") == 0);
  }
}

TEST_CASE("LARS and LAMB skip exactly the variables of rank 0 and 1") {
  Graph graph;
  CHECK(skips_layer_adaptation(graph.variable("scalar", Shape{}, Initializer::zeros())));
  CHECK(skips_layer_adaptation(graph.variable("stem/scale", kBias, Initializer::zeros())));
  CHECK_FALSE(skips_layer_adaptation(graph.variable("dense/kernel", kKernel, Initializer::zeros())));
}

TEST_CASE("momentum, LARS and LAMB keep one, one and two slots per variable, named after it") {
  for (const auto& [optimizer, slots] :
       {std::pair{Optimizer::momentum(0.1), std::vector<std::string>{"w/momentum"}},
        std::pair{Optimizer::lars(0.1), std::vector<std::string>{"w/momentum"}},
        std::pair{Optimizer::lamb(0.1), std::vector<std::string>{"w/step", "w/m", "w/v"}}}) {
    Graph graph;
    const Tensor w = graph.variable("w", kKernel, Initializer::normal(1));
    Optimizer copy = optimizer;
    copy.minimize(graph, reduce_sum(square(w), Shape{}));
    std::vector<std::string> names;
    for (const auto& slot : copy.slot_variables()) names.push_back(slot.name());
    CHECK(names == slots);
    ExecutionOptions options;
    options.numerics = false;
    Executor executor(graph, MeshShape::parse("a:2"), LayoutRules::parse("rows:a"), nullptr, options);
    const std::uint64_t per_slot = 2 * 6 * 4;  // [rows/2, cols] fp32 per core
    const bool lamb = copy.config().kind == OptimizerConfig::Kind::lamb;
    CHECK(executor.counters().optimizer_state_bytes_per_core() == (lamb ? 2 * per_slot + 4 : per_slot));
  }
}
