// Optimizers update the sliced variables so that the loss falls, identically on one core and on a mesh.
#include "mesh_tf/optimizer.hpp"

#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "tests/mesh_tf/battery.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;

namespace {

struct Trained {
  std::vector<double> losses;
  std::vector<float> w;
};

Trained train(const Optimizer& prototype, const std::string& mesh_text, const std::string& layout,
              int steps) {
  Graph g(5);
  const Dimension batch("batch", 16), io("io", 8), hidden("hidden", 16);
  const Tensor x = g.input("x", {batch, io});
  const Tensor target = g.input("target", {batch, io});
  const Tensor w = g.variable("w", {io, hidden}, Initializer::normal(0.3f));
  const Tensor v = g.variable("v", {hidden, io}, Initializer::normal(0.3f));
  const Tensor y = einsum({tanh(einsum({x, w}, Shape{batch, hidden})), v}, Shape{batch, io});
  const Tensor loss = reduce_mean(square(sub(y, target)), Shape{}, "loss");
  Optimizer optimizer = prototype;
  optimizer.minimize(g, loss);
  const auto mesh = MeshShape::parse(mesh_text);
  Executor executor(g, mesh, rules_for(layout, mesh), nullptr);
  executor.feed(x, random_values(16 * 8, 21));
  auto t = random_values(16 * 8, 22, 0.5f);
  executor.feed(target, t);
  Trained out;
  for (int s = 0; s < steps; ++s) out.losses.push_back(executor.run({loss}).loss);
  out.w = executor.variable_value(w);
  return out;
}

}  // namespace

TEST_CASE("sgd adam and adafactor reduce the loss and agree across layouts") {
  for (const auto& optimizer : {Optimizer::sgd(0.1), Optimizer::adam(0.01), Optimizer::adafactor(0.01)}) {
    const auto single = train(optimizer, "", "", 25);
    INFO("optimizer kind " << static_cast<int>(optimizer.config().kind) << " first loss "
                           << single.losses.front() << " last " << single.losses.back());
    CHECK(single.losses.back() < 0.7 * single.losses.front());
    const auto mesh = train(optimizer, "a:2;b:2", "batch:a;hidden:b", 25);
    for (std::size_t s = 0; s < single.losses.size(); ++s)
      CHECK(mesh.losses[s] == Approx(single.losses[s]).epsilon(1e-3));
    REQUIRE(mesh.w.size() == single.w.size());
    for (std::size_t i = 0; i < single.w.size(); ++i) CHECK(mesh.w[i] == Approx(single.w[i]).margin(1e-3));
  }
}

TEST_CASE("optimizer slots are counted as optimizer state") {
  Graph g;
  const Tensor w = g.variable("w", Shape{{"rows", 8}, {"cols", 4}}, Initializer::normal(1));
  const Tensor loss = reduce_sum(square(w), Shape{});
  Optimizer adam = Optimizer::adam(0.1);
  adam.minimize(g, loss);
  CHECK(adam.slot_variables().size() == 3);  // step, m, v
  ExecutionOptions options;
  options.numerics = false;
  Executor executor(g, MeshShape::parse("a:2"), LayoutRules::parse("rows:a"), nullptr, options);
  CHECK(executor.counters().variable_bytes_per_core() == 4u * 4 * 4);
  CHECK(executor.counters().optimizer_state_bytes_per_core() == 2u * 4 * 4 * 4 + 4);
  CHECK_THROWS_WITH(Optimizer::parse_kind("adamw"),
                    "unknown optimizer 'adamw' (did you mean 'adam'?); valid optimizers are sgd, adam, "
                    "adafactor, momentum, "
                    "lars, lamb");
}
