// Weight-update sharding (Xu et al. 2020, mesh_tf/optimizer.hpp) against a hand computation: a two-layer MLP
// data-parallel on an 8-core ring, trained with Adam. w1 [d_in:16, hidden:32] and w2 [hidden:32, d_out:16]
// are 512 fp32 elements (2048 bytes) each; both shard along hidden (their largest dim 8 divides).
#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"
#include "mesh_tf/optimizer.hpp"
#include "tests/mesh_tf/sharding_mlp.hpp"
#include "tests/mesh_tf/sim_for_tests.hpp"
#include "topologies/presets.hpp"

using namespace tpusim::mtf;
using tpusim::mtf::testing::make_test_simulator;

namespace {

struct Outcome {
  std::vector<double> losses;
  Counters counters;
  LayoutRules rules;
};

Outcome train(bool sharded, tpusim::sim::Simulator& simulator) {
  Graph g(3);
  const auto [x, target, loss] = tpusim::mtf::testing::build_sharding_mlp(g);
  const LayoutRules rules = LayoutRules::parse("batch:batch");
  Optimizer optimizer = Optimizer::adam(0.01);
  if (sharded) optimizer.shard_updates({"batch", 8, rules});
  optimizer.minimize(g, loss);
  Outcome outcome;
  outcome.rules = sharded ? optimizer.sharded_rules() : rules;
  ExecutionOptions options;
  options.numerics = true;
  Executor executor(g, MeshShape::parse("batch:8"), outcome.rules, &simulator, options);
  std::vector<float> xs(64 * 16), ts(64 * 16);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    xs[i] = static_cast<float>((i * 37 % 101) / 50.0 - 1.0);
    ts[i] = static_cast<float>((i * 53 % 89) / 44.0 - 1.0);
  }
  executor.feed(x, xs);
  executor.feed(target, ts);
  for (int step = 0; step < 4; ++step) outcome.losses.push_back(executor.run({loss}).loss);
  outcome.counters = executor.counters();
  return outcome;
}

// Bytes per core of the collectives of `kind` that move more than one element (the loss's scalar allreduce
// is the same either way).
std::uint64_t bytes_of(const Counters& counters, tpusim::sim::CollectiveKind kind, int* count) {
  std::uint64_t bytes = 0;
  *count = 0;
  for (const auto& c : counters.collectives) {
    if (c.kind != kind || c.elements_per_core <= 1) continue;
    bytes += c.bytes_per_core;
    ++*count;
  }
  return bytes;
}

}  // namespace

TEST_CASE(
    "weight-update sharding: reduce-scatter and all-gather by hand, 1/8 of the Adam slots, same losses") {
  auto simulator = make_test_simulator(tpusim::topo::preset("ring-8"));
  const Outcome plain = train(false, *simulator);
  const Outcome sharded = train(true, *simulator);
  using tpusim::sim::CollectiveKind;
  int n = 0;
  // Without: each gradient allreduced whole, 2048 bytes per core each.
  CHECK(bytes_of(plain.counters, CollectiveKind::allreduce, &n) == 2 * 2048);
  CHECK(n == 2);
  CHECK(bytes_of(plain.counters, CollectiveKind::reduce_scatter, &n) == 0);
  // With: each gradient reduce-scattered (a 2048-byte buffer per member, 256 bytes kept), each updated
  // weight all-gathered (its 2048-byte output from 256-byte shards); no gradient allreduce is left.
  CHECK(sharded.rules.to_string().find("hidden_shard:batch") != std::string::npos);
  CHECK(bytes_of(sharded.counters, CollectiveKind::allreduce, &n) == 0);
  CHECK(bytes_of(sharded.counters, CollectiveKind::reduce_scatter, &n) == 2 * 2048);
  CHECK(n == 2);
  CHECK(bytes_of(sharded.counters, CollectiveKind::allgather, &n) == 2 * 2048);
  CHECK(n == 2);
  for (const auto& c : sharded.counters.collectives) {
    if (c.kind == CollectiveKind::reduce_scatter || c.kind == CollectiveKind::allgather) {
      CHECK(c.group_size == 8);
      CHECK(c.elements_per_core == 512);
    }
  }
  // Adam's m and v of both weights: 4 x 512 fp32 = 8192 bytes per core, 1024 sharded; the two step counters
  // (4 bytes each) stay whole.
  CHECK(plain.counters.optimizer_state_bytes_per_core() == 8192 + 8);
  CHECK(sharded.counters.optimizer_state_bytes_per_core() == 8192 / 8 + 8);
  CHECK(sharded.counters.variable_bytes_per_core() == plain.counters.variable_bytes_per_core());
  // The same training: the sums are the same up to their order.
  REQUIRE(plain.losses.size() == sharded.losses.size());
  CHECK(plain.losses.back() < plain.losses.front());
  for (std::size_t i = 0; i < plain.losses.size(); ++i) {
    INFO("step " << i);
    CHECK(sharded.losses[i] == Approx(plain.losses[i]).epsilon(1e-5));
  }
}
