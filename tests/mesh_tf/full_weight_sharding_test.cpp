// Fully sharded weights (ZeRO-3 / FSDP, mesh_tf/weight_sharding.hpp mode `full`): a randomised MLP trained
// on randomised meshes against a plain double-precision reference of the same training written here; the
// per-core bytes and the collectives of an 8-core ring by hand; and each gather's and reduce-scatter's
// simulated time against the bidirectional ring's alpha-beta cost by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"
#include "mesh_tf/optimizer.hpp"
#include "tests/mesh_tf/sharding_mlp.hpp"
#include "tests/mesh_tf/sim_for_tests.hpp"
#include "topologies/presets.hpp"

using namespace tpusim::mtf;
using tpusim::mtf::testing::make_test_simulator;
using tpusim::sim::CollectiveKind;

namespace {

// h = relu(x.w1 + b1), y = h.w2, loss = mean over batch and d_out of (y - target)^2.
struct Mlp {
  std::int64_t batch = 0, d_in = 0, hidden = 0, d_out = 0;
};

struct BuiltMlp {
  std::unique_ptr<Graph> graph;
  Tensor x, target, loss;
  std::vector<Tensor> variables;  // w1, b1, w2 as stored (sharded or not)
  std::vector<Tensor> gradients;
  LayoutRules rules;
};

// `axis`/`axis_size`: the data-parallel mesh axis; fully sharded over it when `sharded`.
BuiltMlp build_mlp(const Mlp& m, const OptimizerConfig& optimizer, const LayoutRules& rules,
                   const std::string& axis, std::int64_t axis_size, bool sharded) {
  BuiltMlp b;
  b.graph = std::make_unique<Graph>(11);
  Graph& g = *b.graph;
  const WeightSharding sharding(axis, axis_size, rules);
  if (sharded) g.shard_variables(sharding);
  const Dimension batch("batch", m.batch), d_in("d_in", m.d_in), hidden("hidden", m.hidden),
      d_out("d_out", m.d_out);
  b.x = g.input("x", {batch, d_in});
  b.target = g.input("target", {batch, d_out});
  const Tensor w1 = g.variable("w1", {d_in, hidden}, Initializer::normal(0.3f));
  const Tensor b1 = g.variable("b1", {hidden}, Initializer::normal(0.1f));
  const Tensor w2 = g.variable("w2", {hidden, d_out}, Initializer::normal(0.3f));
  const Tensor h = relu(add(einsum({b.x, w1}, Shape{batch, hidden}), b1));
  const Tensor y = einsum({h, w2}, Shape{batch, d_out});
  b.loss = reduce_mean(square(sub(y, b.target)), Shape{}, "loss");
  b.variables = g.variables();
  b.gradients = Optimizer(optimizer).minimize(g, b.loss, b.variables);
  b.rules = sharded ? sharding.rules_with(g.sharded_variable_dims()) : rules;
  return b;
}

// The same training in double precision: SGD or Adam (Kingma & Ba with the bias correction in the step
// size, as optimizer.hpp documents it), the gradients written out by hand.
class ReferenceMlp {
 public:
  ReferenceMlp(const Mlp& m, const OptimizerConfig& config, std::vector<std::vector<double>> weights)
      : m_(m), config_(config), w_(std::move(weights)) {
    for (const auto& w : w_) {
      moment1_.emplace_back(w.size(), 0.0);
      moment2_.emplace_back(w.size(), 0.0);
    }
  }

  // One step on x [batch, d_in] and target [batch, d_out]; returns the loss before the update.
  double step(const std::vector<float>& x, const std::vector<float>& target) {
    const auto B = m_.batch, I = m_.d_in, H = m_.hidden, O = m_.d_out;
    const auto &w1 = w_[0], &b1 = w_[1], &w2 = w_[2];
    std::vector<double> z(B * H), h(B * H), y(B * O, 0.0);
    for (std::int64_t b = 0; b < B; ++b) {
      for (std::int64_t j = 0; j < H; ++j) {
        double s = b1[j];
        for (std::int64_t i = 0; i < I; ++i) s += x[b * I + i] * w1[i * H + j];
        z[b * H + j] = s;
        h[b * H + j] = s > 0 ? s : 0;
      }
      for (std::int64_t o = 0; o < O; ++o)
        for (std::int64_t j = 0; j < H; ++j) y[b * O + o] += h[b * H + j] * w2[j * O + o];
    }
    double loss = 0;
    std::vector<double> dy(B * O);
    for (std::int64_t k = 0; k < B * O; ++k) {
      const double e = y[k] - target[k];
      loss += e * e / static_cast<double>(B * O);
      dy[k] = 2 * e / static_cast<double>(B * O);
    }
    std::vector<std::vector<double>> grad = {std::vector<double>(I * H, 0.0), std::vector<double>(H, 0.0),
                                             std::vector<double>(H * O, 0.0)};
    for (std::int64_t b = 0; b < B; ++b) {
      for (std::int64_t j = 0; j < H; ++j) {
        double dh = 0;
        for (std::int64_t o = 0; o < O; ++o) {
          dh += dy[b * O + o] * w2[j * O + o];
          grad[2][j * O + o] += h[b * H + j] * dy[b * O + o];
        }
        const double dz = z[b * H + j] > 0 ? dh : 0;
        grad[1][j] += dz;
        for (std::int64_t i = 0; i < I; ++i) grad[0][i * H + j] += x[b * I + i] * dz;
      }
    }
    ++t_;
    for (std::size_t v = 0; v < w_.size(); ++v) update(v, grad[v]);
    return loss;
  }

  const std::vector<std::vector<double>>& weights() const { return w_; }

 private:
  void update(std::size_t v, const std::vector<double>& g) {
    const double lr = config_.learning_rate;
    if (config_.kind == OptimizerConfig::Kind::sgd) {
      for (std::size_t i = 0; i < g.size(); ++i) w_[v][i] -= lr * g[i];
      return;
    }
    const double b1 = config_.beta1, b2 = config_.beta2;
    const double correction = std::sqrt(1 - std::pow(b2, t_)) / (1 - std::pow(b1, t_));
    for (std::size_t i = 0; i < g.size(); ++i) {
      moment1_[v][i] = b1 * moment1_[v][i] + (1 - b1) * g[i];
      moment2_[v][i] = b2 * moment2_[v][i] + (1 - b2) * g[i] * g[i];
      w_[v][i] -= lr * correction * moment1_[v][i] / (std::sqrt(moment2_[v][i]) + config_.epsilon);
    }
  }

  Mlp m_;
  OptimizerConfig config_;
  std::vector<std::vector<double>> w_, moment1_, moment2_;
  int t_ = 0;
};

struct Trained {
  std::vector<double> losses;
  std::vector<std::vector<float>> weights;  // after the last step
};

Trained train(BuiltMlp& b, const std::string& mesh, const std::vector<std::vector<float>>& xs,
              const std::vector<std::vector<float>>& targets) {
  ExecutionOptions options;
  options.numerics = true;
  Executor executor(*b.graph, MeshShape::parse(mesh), b.rules, nullptr, options);
  Trained trained;
  for (std::size_t step = 0; step < xs.size(); ++step) {
    executor.feed(b.x, xs[step]);
    executor.feed(b.target, targets[step]);
    trained.losses.push_back(executor.run({b.loss}).loss);
  }
  for (const auto& v : b.variables) trained.weights.push_back(executor.variable_value(v));
  return trained;
}

std::vector<float> normal_values(std::int64_t n, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::vector<float> out(n);
  for (auto& v : out) v = static_cast<float>(normal(rng));
  return out;
}

}  // namespace

TEST_CASE("full weight sharding: a randomised MLP on randomised meshes trains as the double reference") {
  std::mt19937_64 rng(2026);
  struct MeshCase {
    const char *mesh, *layout;
    std::int64_t axis_size;
  };
  const MeshCase meshes[] = {{"batch:2", "batch:batch", 2},
                             {"batch:4", "batch:batch", 4},
                             {"batch:2;model:2", "batch:batch;hidden:model", 2},
                             {"model:2;batch:4", "batch:batch;hidden:model", 4},
                             {"batch:4;model:2", "batch:batch;d_in:model", 4}};
  const OptimizerConfig optimizers[] = {Optimizer::sgd(0.05).config(), Optimizer::adam(0.01).config()};
  int sharded_variables = 0;  // of the 30 variables of the 10 trials
  for (int trial = 0; trial < 10; ++trial) {
    const MeshCase& mc = meshes[rng() % std::size(meshes)];
    const OptimizerConfig& optimizer = optimizers[rng() % std::size(optimizers)];
    // hidden a multiple of 4, the other sizes ones the axis sometimes does not divide (a variable with no
    // such dim, e.g. b1 [hidden] when hidden is split over model, stays replicated).
    Mlp m;
    m.batch = mc.axis_size * static_cast<std::int64_t>(2 + rng() % 3);
    m.d_in = 2 * static_cast<std::int64_t>(1 + rng() % 5);
    m.hidden = 4 * static_cast<std::int64_t>(1 + rng() % 3);
    m.d_out = static_cast<std::int64_t>(1 + rng() % 7);
    INFO("trial " << trial << ": mesh " << mc.mesh << ", layout " << mc.layout << ", optimizer "
                  << static_cast<int>(optimizer.kind) << ", batch " << m.batch << " d_in " << m.d_in
                  << " hidden " << m.hidden << " d_out " << m.d_out);
    const LayoutRules rules = LayoutRules::parse(mc.layout);
    BuiltMlp plain = build_mlp(m, optimizer, rules, "batch", mc.axis_size, false);
    BuiltMlp sharded = build_mlp(m, optimizer, rules, "batch", mc.axis_size, true);
    for (const auto& v : sharded.variables)
      if (v.shape().to_string().find("_shard") != std::string::npos) ++sharded_variables;
    std::vector<std::vector<float>> xs, targets;
    for (int step = 0; step < 3; ++step) {
      xs.push_back(normal_values(m.batch * m.d_in, rng));
      targets.push_back(normal_values(m.batch * m.d_out, rng));
    }
    // The initial weights, as the engine draws them (the same whether stored sharded or not).
    std::vector<std::vector<double>> initial;
    {
      ExecutionOptions options;
      options.numerics = true;
      Executor executor(*plain.graph, MeshShape::parse(mc.mesh), plain.rules, nullptr, options);
      for (const auto& v : plain.variables) {
        const auto values = executor.variable_value(v);
        initial.emplace_back(values.begin(), values.end());
      }
    }
    ReferenceMlp reference(m, optimizer, initial);
    std::vector<double> reference_losses;
    for (int step = 0; step < 3; ++step) reference_losses.push_back(reference.step(xs[step], targets[step]));
    const Trained a = train(plain, mc.mesh, xs, targets);
    const Trained b = train(sharded, mc.mesh, xs, targets);
    for (int step = 0; step < 3; ++step) {
      INFO("step " << step);
      CHECK(b.losses[step] == Approx(reference_losses[step]).epsilon(1e-5).margin(1e-6));
      CHECK(b.losses[step] == Approx(a.losses[step]).epsilon(1e-5).margin(1e-6));
    }
    for (std::size_t v = 0; v < 3; ++v) {
      REQUIRE(b.weights[v].size() == reference.weights()[v].size());
      for (std::size_t i = 0; i < b.weights[v].size(); ++i) {
        INFO("variable " << v << " element " << i);
        CHECK(b.weights[v][i] == Approx(reference.weights()[v][i]).epsilon(1e-4).margin(1e-5));
        CHECK(b.weights[v][i] == Approx(a.weights[v][i]).epsilon(1e-5).margin(1e-6));
      }
    }
  }
  CHECK(sharded_variables >= 10);  // both sharded and replicated variables were exercised
  CHECK(sharded_variables < 30);
}

namespace {

// The MLP of sharding_mlp.hpp, data-parallel on an 8-core ring, Adam.
struct RingRun {
  Counters counters;
  LiveMemory live;
  StepResult step;
  std::uint64_t gradient_bytes = 0;
};

RingRun run_on_ring(tpusim::sim::Simulator& simulator, bool sharded, bool numerics) {
  Graph g(3);
  const LayoutRules rules = LayoutRules::parse("batch:batch");
  const WeightSharding sharding("batch", 8, rules);
  if (sharded) g.shard_variables(sharding);
  const auto [x, target, loss] = tpusim::mtf::testing::build_sharding_mlp(g);
  const auto gradients = Optimizer::adam(0.01).minimize(g, loss);
  ExecutionOptions options;
  options.numerics = numerics;
  Executor executor(g, MeshShape::parse("batch:8"),
                    sharded ? sharding.rules_with(g.sharded_variable_dims()) : rules, &simulator, options);
  RingRun run;
  run.counters = executor.counters();
  run.live = executor.live_memory();
  for (const auto& gradient : gradients)
    run.gradient_bytes += run.counters.tensors.at(gradient.id()).slice_bytes_per_core;
  run.step = executor.run();
  return run;
}

// The collectives of `kind` that move more than one element (a scalar's sum is the same either way).
std::vector<CollectiveTiming> of_kind(const StepResult& step, CollectiveKind kind) {
  std::vector<CollectiveTiming> out;
  for (const auto& c : step.collectives)
    if (c.record.kind == kind && c.record.elements_per_core > 1) out.push_back(c);
  return out;
}

}  // namespace

TEST_CASE("full weight sharding: per-core bytes, gathers and reduce-scatters of an 8-core ring by hand") {
  auto simulator = make_test_simulator(tpusim::topo::preset("ring-8"));
  const RingRun plain = run_on_ring(*simulator, false, false);
  const RingRun sharded = run_on_ring(*simulator, true, false);
  // At rest: the weights, their gradients and Adam's m and v are 1/8 per core (the step counters stay whole).
  CHECK(plain.counters.variable_bytes_per_core() == 2 * 2048);
  CHECK(sharded.counters.variable_bytes_per_core() == 2 * 2048 / 8);
  CHECK(plain.gradient_bytes == 2 * 2048);
  CHECK(sharded.gradient_bytes == 2 * 2048 / 8);
  CHECK(plain.counters.optimizer_state_bytes_per_core() == 4 * 2048 + 2 * 4);
  CHECK(sharded.counters.optimizer_state_bytes_per_core() == 4 * 2048 / 8 + 2 * 4);
  // The sources live all step: x and target (64 x 16 fp32 split 8 ways, 512 bytes each), weights, slots.
  CHECK(plain.live.source_bytes == 2 * 512 + 2 * 2048 + 4 * 2048 + 8);
  CHECK(sharded.live.source_bytes == 2 * 512 + 2 * 2048 / 8 + 4 * 2048 / 8 + 8);
  // A gathered weight is a transient: at least one is live at the peak's high-water mark, none is kept for
  // the backward pass (it gathers again), so the activations kept are the same.
  CHECK(sharded.live.peak_bytes >= sharded.live.source_bytes + 2048);
  CHECK(sharded.live.peak_bytes < plain.live.peak_bytes);
  CHECK(sharded.counters.kept_activation_bytes_per_core() == plain.counters.kept_activation_bytes_per_core());
  // Without sharding: each gradient allreduced whole. With it: w1 and w2 gathered for the forward pass and
  // w2 again for dh = dy.w2 (dw1 = x.dh reads no weight), each a 2048-byte output from 256-byte shards
  // over all 8 cores; each gradient reduce-scattered; no allreduce of a gradient is left.
  CHECK(of_kind(plain.step, CollectiveKind::allreduce).size() == 2);
  CHECK(of_kind(plain.step, CollectiveKind::allgather).empty());
  CHECK(of_kind(sharded.step, CollectiveKind::allreduce).empty());
  const auto gathers = of_kind(sharded.step, CollectiveKind::allgather);
  const auto scatters = of_kind(sharded.step, CollectiveKind::reduce_scatter);
  CHECK(gathers.size() == 3);
  CHECK(scatters.size() == 2);
  for (const auto& c : gathers) CHECK(c.record.bytes_per_core == 2048);
  for (const auto& c : scatters) CHECK(c.record.bytes_per_core == 2048);
  for (const auto& c : sharded.step.collectives) CHECK(c.record.group_size == 8);
}

TEST_CASE(
    "full weight sharding: each gather and reduce-scatter takes the bidirectional ring's time by hand") {
  const auto topology = tpusim::topo::preset("ring-8");
  auto simulator = make_test_simulator(topology);
  // One layer, y = x.w with w [io:64, out:64] (16384 bytes): the gather before the forward einsum and the
  // reduce-scatter after the backward one are the step's only collectives, so nothing contends with them.
  auto one_layer = [&](bool sharded) {
    Graph g(5);
    const LayoutRules rules = LayoutRules::parse("batch:batch");
    const WeightSharding sharding("batch", 8, rules);
    if (sharded) g.shard_variables(sharding);
    const Dimension batch("batch", 64), io("io", 64), out("out", 64);
    const Tensor x = g.input("x", {batch, io});
    const Tensor w = g.variable("w", {io, out}, Initializer::normal(0.1));
    const Tensor loss = reduce_sum(square(einsum({x, w}, Shape{batch, out})), Shape{}, "loss");
    Optimizer::sgd(0.01).minimize(g, loss);
    ExecutionOptions options;
    options.numerics = false;
    Executor executor(g, MeshShape::parse("batch:8"),
                      sharded ? sharding.rules_with(g.sharded_variable_dims()) : rules, simulator.get(),
                      options);
    return executor.run();
  };
  // By hand: a bidirectional ring of p = 8 over links of latency a and bandwidth W moves S bytes in p - 1
  // steps of S/p, half each way: (p - 1) a + (p - 1)/p S / (2 W) for a gather or a reduce-scatter, twice
  // that for an allreduce (its reduce-scatter then its gather).
  const double a = topology.inter_chip().latency_s(), bw = topology.inter_chip().bandwidth_Bps();
  const double S = 64 * 64 * 4, p = 8;
  const double half = (p - 1) * a + (p - 1) / p * S / (2 * bw);
  const StepResult plain = one_layer(false);
  const StepResult sharded = one_layer(true);
  const auto reduced = of_kind(plain, CollectiveKind::allreduce);
  REQUIRE(reduced.size() == 1);
  CHECK(reduced[0].time_s == Approx(2 * half).epsilon(1e-9));
  const auto gathers = of_kind(sharded, CollectiveKind::allgather);
  const auto scatters = of_kind(sharded, CollectiveKind::reduce_scatter);
  REQUIRE(gathers.size() == 1);
  REQUIRE(scatters.size() == 1);
  CHECK(gathers[0].time_s == Approx(half).epsilon(1e-9));
  CHECK(scatters[0].time_s == Approx(half).epsilon(1e-9));
  CHECK(of_kind(sharded, CollectiveKind::allreduce).empty());
}

TEST_CASE("weight sharding: each variable's dim is its largest unsplit one the axis divides, or none") {
  const WeightSharding s("data", 4, LayoutRules::parse("batch:data;d_ff:model"));
  auto dim = [&](std::vector<Dimension> dims) { return s.dim_to_shard(Shape(std::move(dims))); };
  // d_ff is split over model, so d_model (the largest of the rest) is chosen.
  CHECK(dim({{"d_model", 1024}, {"d_ff", 4096}}) == "d_model");
  CHECK(dim({{"d_ff", 4096}, {"vocab", 12}, {"d_model", 8}}) == "vocab");
  CHECK(dim({{"a", 8}, {"b", 8}}) == "a");               // the first of equals
  CHECK(dim({{"a", 6}, {"b", 10}}).empty());             // the axis divides none
  CHECK(dim({{"batch", 16}, {"d_model", 64}}).empty());  // split over the axis already
  CHECK(dim({}).empty());                                // a scalar
  CHECK(WeightSharding("data", 1, LayoutRules()).dim_to_shard(Shape({{"a", 8}})).empty());
  CHECK(s.rules_with({"d_model"}).to_string() == "batch:data;d_ff:model;d_model_shard:data");
  CHECK_THROWS_WITH(
      WeightSharding("data", 4, LayoutRules::parse("d_model_shard:model")).rules_with({"d_model"}),
      Catch::Contains("already has a rule for 'd_model_shard'"));
  CHECK_THROWS_WITH(WeightSharding("", 4, LayoutRules()), Catch::Contains("needs a name"));
  CHECK_THROWS_WITH(WeightSharding("data", 0, LayoutRules()), Catch::Contains("has size 0"));
}
