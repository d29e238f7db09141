// XLA's all-reduce combiner (allreduce_combiner.hpp): the two gradient sums of the paper's two-layer example,
// data-parallel on 8 cores, become one allreduce of both buffers, whose numbers are those of the two and
// against a plain double-precision loop, and whose time pays the collective's latency once.
#include "mesh_tf/allreduce_combiner.hpp"

#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "tests/mesh_tf/sim_for_tests.hpp"
#include "tests/mesh_tf/two_layer.hpp"
#include "topologies/presets.hpp"

using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;

namespace {

constexpr std::int64_t kCombinerBatch = 16, kCombinerIo = 8, kCombinerHidden = 32;

struct CombinerRun {
  StepResult result;
  TwoLayerValues values;
};

CombinerRun run(tpusim::sim::Simulator& simulator, std::uint64_t combine_bytes) {
  TwoLayer t = two_layer_example(kCombinerBatch, kCombinerIo, kCombinerHidden);
  ExecutionOptions options;
  options.outputs = t.grads;
  options.allreduce_combine_bytes = combine_bytes;
  Executor executor(*t.graph, MeshShape::parse("batch:8"), LayoutRules::parse("batch:batch"), &simulator,
                    options);
  CombinerRun r;
  r.values = feed_random(executor, t, 11);
  r.result = executor.run(t.grads);
  return r;
}

}  // namespace

TEST_CASE("combined gradient sums: one allreduce, the same numbers, the latency paid once") {
  auto simulator = make_test_simulator(tpusim::topo::preset("ring-8"));
  const CombinerRun apart = run(*simulator, 0);
  const CombinerRun together = run(*simulator, 1 << 20);
  // dw [io, hidden] and dv [hidden, io] are sums over the batch split on 8 cores: 256 elements each.
  REQUIRE(apart.result.collectives.size() == 2);
  REQUIRE(together.result.collectives.size() == 1);
  CHECK(apart.result.collectives[0].record.elements_per_core == kCombinerIo * kCombinerHidden);
  CHECK(together.result.collectives[0].record.elements_per_core == 2 * kCombinerIo * kCombinerHidden);
  // Below the threshold of one of them, nothing is combined.
  CHECK(run(*simulator, kCombinerIo * kCombinerHidden * 4).result.collectives.size() == 2);

  // The same numbers as apart (up to the order the ring adds them in, which the buffer's split sets), and as
  // a plain loop: dv[h, o] = sum over b of relu(x.w)[b, h] * dy[b, o].
  REQUIRE(together.result.fetched.size() == 3);
  for (std::size_t g = 0; g < 3; ++g) {
    REQUIRE(together.result.fetched[g].size() == apart.result.fetched[g].size());
    for (std::size_t i = 0; i < apart.result.fetched[g].size(); ++i)
      CHECK(together.result.fetched[g][i] == Approx(apart.result.fetched[g][i]).margin(1e-5));
  }
  const std::vector<double> dv = reference_dv(together.values, kCombinerBatch, kCombinerIo, kCombinerHidden);
  for (std::size_t i = 0; i < dv.size(); ++i)
    CHECK(together.result.fetched[1][i] == Approx(dv[i]).margin(1e-4));

  // Latency once: longer than either sum alone, shorter than both one after the other.
  const double a = apart.result.collectives[0].time_s, b = apart.result.collectives[1].time_s;
  const double both = together.result.collectives[0].time_s;
  CHECK(both > std::max(a, b));
  CHECK(both < a + b);
}
