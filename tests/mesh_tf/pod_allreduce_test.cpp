// A sum over every core of the pod run on the torus's own axes (ExecutionOptions::pod_allreduce, Ying et
// al.'s 2-D torus all-reduce): its simulated time against bucket2d's cost by hand, the numbers against the
// run that sums over the mesh's axes, and sums over part of the pod left as they were.
#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "tests/mesh_tf/sim_for_tests.hpp"
#include "tests/mesh_tf/two_layer.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;

namespace {

constexpr std::int64_t kBatch = 64, kIo = 32, kHidden = 48;

struct Run {
  StepResult result;
  TwoLayerValues values;
};

// The two-layer example on a 4x4 torus of one-core chips, one full step from seeded inputs.
Run run_two_layer(sim::Simulator& simulator, const std::string& mesh, const std::string& layout,
                  const std::string& pod_allreduce) {
  TwoLayer t = two_layer_example(kBatch, kIo, kHidden);
  ExecutionOptions options;
  options.pod_allreduce = pod_allreduce;
  options.outputs = t.grads;
  Executor executor(*t.graph, MeshShape::parse(mesh), LayoutRules::parse(layout), &simulator, options);
  Run run;
  run.values = feed_random(executor, t, 5);
  run.result = executor.run(t.grads);
  return run;
}

}  // namespace

TEST_CASE("pod allreduce: a gradient sum over the whole pod takes bucket2d's time by hand, same numbers") {
  const auto topology = topo::topology_from_spec("torus:4x4");
  auto simulator = make_test_simulator(topology);
  const Run plain = run_two_layer(*simulator, "batch:16", "batch:batch", "");
  const Run pod = run_two_layer(*simulator, "batch:16", "batch:batch", "bucket2d");
  // By hand, for B bytes per core over links of latency a and bandwidth W, bucket2d's rings bidirectional
  // (half of each step's data each way): a reduce-scatter along x (a ring of 4: 3 steps of B/8 per
  // direction), an allreduce along y of those B/4 (6 steps of B/32), an allgather along x (3 steps of B/8):
  // 12 a + (3/8 + 6/32 + 3/8) B / W.
  const double a = topology.inter_chip().latency_s(), bw = topology.inter_chip().bandwidth_Bps();
  int sums = 0;
  for (const auto& c : pod.result.collectives) {
    if (c.record.kind != sim::CollectiveKind::allreduce) continue;
    const double bytes = static_cast<double>(c.record.elements_per_core) * c.record.element_bytes;
    if (bytes < 4096) continue;  // sizes a ring of 4 cannot split evenly are left out of the hand formula
    INFO("allreduce of " << bytes << " bytes per core");
    CHECK(c.time_s == Approx(12 * a + 0.9375 * bytes / bw).epsilon(1e-9));
    ++sums;
  }
  CHECK(sums >= 2);  // the gradients of both weights
  // The numbers: the run summing over the mesh's axis, and dv[h, o] = sum over b of relu(x.w)[b, h] * dy[b,
  // o] as a plain loop in double precision.
  REQUIRE(pod.result.fetched.size() == 3);
  for (std::size_t g = 0; g < 3; ++g) {
    REQUIRE(pod.result.fetched[g].size() == plain.result.fetched[g].size());
    for (std::size_t i = 0; i < plain.result.fetched[g].size(); ++i)
      CHECK(pod.result.fetched[g][i] == Approx(plain.result.fetched[g][i]).margin(1e-5));
  }
  const std::vector<double> dv = reference_dv(pod.values, kBatch, kIo, kHidden);
  for (std::size_t i = 0; i < dv.size(); ++i) CHECK(pod.result.fetched[1][i] == Approx(dv[i]).margin(1e-4));
}

TEST_CASE("pod allreduce: sums over part of the pod keep the mesh's groups") {
  const auto topology = topo::topology_from_spec("torus:4x4");
  auto simulator = make_test_simulator(topology);
  const Run plain = run_two_layer(*simulator, "rows:4;cols:4", "batch:rows;hidden:cols", "");
  const Run pod = run_two_layer(*simulator, "rows:4;cols:4", "batch:rows;hidden:cols", "bucket2d");
  REQUIRE(plain.result.collectives.size() == pod.result.collectives.size());
  for (std::size_t i = 0; i < plain.result.collectives.size(); ++i)
    CHECK(pod.result.collectives[i].time_s == plain.result.collectives[i].time_s);
  CHECK(pod.result.timeline.step_time_s == plain.result.timeline.step_time_s);
}
