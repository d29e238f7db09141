// The collective backend (mesh_tf/collective_backend.hpp): what Mesh-TensorFlow's TPU backend issues for each
// collective, against hand computations from simd_mesh_impl.py, and that its masked forms give the same
// numbers as the collectives they stand for, checked against plain loops.
#include "mesh_tf/collective_backend.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "tests/mesh_tf/battery.hpp"
#include "tests/mesh_tf/sim_for_tests.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;

namespace {

const MeshShape kMesh = MeshShape::parse("a:4;b:16");  // a is dim 0 (4 cores), b dim 1 (16 cores)

IssuedCollective only(const std::vector<IssuedCollective>& issued) {
  REQUIRE(issued.size() == 1);
  return issued.front();
}

}  // namespace

TEST_CASE("the TPU backend upcasts bfloat16 allreduces over more than 8 cores, as simd_mesh_impl.py") {
  const auto tpu = CollectiveBackend::mesh_tf_tpu;
  const auto sum = sim::ReduceOp::sum;
  auto over_b = only(issue(tpu, CollectiveOp::allreduce, sum, DType::bfloat16, {1}, kMesh, 1000));
  CHECK(over_b.kind == sim::CollectiveKind::allreduce);
  CHECK(over_b.elements_per_core == 1000);
  CHECK(over_b.element_bytes == 4);  // 16 > 8
  CHECK(only(issue(tpu, CollectiveOp::allreduce, sum, DType::bfloat16, {0}, kMesh, 1000)).element_bytes == 2);
  CHECK(only(issue(tpu, CollectiveOp::allreduce, sum, DType::bfloat16, {0, 1}, kMesh, 1000)).element_bytes ==
        4);
  CHECK(only(issue(tpu, CollectiveOp::allreduce, sum, DType::float32, {0}, kMesh, 1000)).element_bytes == 4);
  // A group of exactly 8 stays in bfloat16 ("exceeds" the max group size is > 8).
  const MeshShape eight = MeshShape::parse("c:8;d:2");
  CHECK(only(issue(tpu, CollectiveOp::allreduce, sum, DType::bfloat16, {0}, eight, 10)).element_bytes == 2);
  CHECK(only(issue(tpu, CollectiveOp::allreduce, sum, DType::bfloat16, {0, 1}, eight, 10)).element_bytes ==
        4);
}

TEST_CASE("the TPU backend issues an allconcat as a masked allreduce of group-size copies") {
  // A bfloat16 slice of 10 elements gathered over b (16): the gathered buffer is 160 elements, summed as an
  // allreduce in float32 (16 > 8); over a (4) it stays bfloat16.
  const auto over_b = only(issue(CollectiveBackend::mesh_tf_tpu, CollectiveOp::allconcat, sim::ReduceOp::sum,
                                 DType::bfloat16, {1}, kMesh, 160));
  CHECK(over_b.kind == sim::CollectiveKind::allreduce);
  CHECK(over_b.reduce == sim::ReduceOp::sum);
  CHECK(over_b.elements_per_core == 160);
  CHECK(over_b.element_bytes == 4);
  CHECK(over_b.how == "masked allreduce of 16 copies");
  CHECK(only(issue(CollectiveBackend::mesh_tf_tpu, CollectiveOp::allconcat, sim::ReduceOp::sum,
                   DType::bfloat16, {0}, kMesh, 40))
            .element_bytes == 2);
  const auto ideal = only(issue(CollectiveBackend::ideal, CollectiveOp::allconcat, sim::ReduceOp::sum,
                                DType::bfloat16, {1}, kMesh, 160));
  CHECK(ideal.kind == sim::CollectiveKind::allgather);
  CHECK(ideal.element_bytes == 2);
  CHECK(ideal.how.empty());
}

TEST_CASE("the TPU backend issues a max allreduce as one stacked allconcat per mesh dimension") {
  // 100 bfloat16 elements, max over a (4) then b (16): 400 elements summed over a in bfloat16, then 1600 over
  // b in float32.
  const auto issued = issue(CollectiveBackend::mesh_tf_tpu, CollectiveOp::allreduce, sim::ReduceOp::max,
                            DType::bfloat16, {0, 1}, kMesh, 100);
  REQUIRE(issued.size() == 2);
  CHECK(issued[0].mesh_dims == std::vector<int>{0});
  CHECK(issued[0].reduce == sim::ReduceOp::sum);
  CHECK(issued[0].elements_per_core == 400);
  CHECK(issued[0].element_bytes == 2);
  CHECK(issued[1].mesh_dims == std::vector<int>{1});
  CHECK(issued[1].elements_per_core == 1600);
  CHECK(issued[1].element_bytes == 4);
  const auto ideal = only(issue(CollectiveBackend::ideal, CollectiveOp::allreduce, sim::ReduceOp::max,
                                DType::bfloat16, {0, 1}, kMesh, 100));
  CHECK(ideal.reduce == sim::ReduceOp::max);
  CHECK(ideal.elements_per_core == 100);
  CHECK(ideal.mesh_dims == std::vector<int>{0, 1});
}

TEST_CASE("the TPU backend sends a float32 alltoall as bfloat16 and a permute in its dtype") {
  const auto tpu = CollectiveBackend::mesh_tf_tpu;
  const auto alltoall =
      only(issue(tpu, CollectiveOp::alltoall, sim::ReduceOp::sum, DType::float32, {1}, kMesh, 64));
  CHECK(alltoall.kind == sim::CollectiveKind::alltoall);
  CHECK(alltoall.element_bytes == 2);
  CHECK(alltoall.how == "as bfloat16");
  CHECK(only(issue(tpu, CollectiveOp::alltoall, sim::ReduceOp::sum, DType::bfloat16, {1}, kMesh, 64))
            .how.empty());
  CHECK(only(issue(CollectiveBackend::ideal, CollectiveOp::alltoall, sim::ReduceOp::sum, DType::float32, {1},
                   kMesh, 64))
            .element_bytes == 4);
  const auto permute =
      only(issue(tpu, CollectiveOp::permute, sim::ReduceOp::sum, DType::float32, {0}, kMesh, 64));
  CHECK(permute.kind == sim::CollectiveKind::permute);
  CHECK(permute.element_bytes == 4);
}

// x[batch 8, v 32] with v split over cols (8) and batch over rows (4) on tpu-v2-32: the max over v is an
// allreduce (max) over cols, and gathering batch is an allconcat over rows. Both backends must give the plain
// loops' values exactly (a masked sum adds zeros), and the TPU's masked forms must take longer than the
// collectives they stand for.
TEST_CASE("the TPU backend's masked collectives give the numbers of the collectives they stand for") {
  const std::vector<float> values = random_values(8 * 32, 5);
  std::vector<float> row_max(8, -1e30f);
  for (int b = 0; b < 8; ++b) {
    for (int v = 0; v < 32; ++v) row_max[b] = std::max(row_max[b], values[b * 32 + v]);
  }
  auto simulator = make_test_simulator(topo::preset("tpu-v2-32"));
  auto run = [&](CollectiveBackend backend) {
    Graph g;
    const Tensor x = g.input("x", Shape{{"batch", 8}, {"v", 32}});
    const Tensor max_v = reduce_max(x, Shape{{"batch", 8}});
    const Tensor gathered = rename(max_v, "batch", "rows_all");  // batch is split over rows, rows_all is not
    ExecutionOptions options;
    options.collective_backend = backend;
    options.outputs = {gathered};
    Executor executor(g, MeshShape::parse("rows:4;cols:8"), LayoutRules::parse("batch:rows;v:cols"),
                      simulator.get(), options);
    executor.feed(x, values);
    return executor.run({gathered});
  };
  const StepResult tpu = run(CollectiveBackend::mesh_tf_tpu);
  const StepResult ideal = run(CollectiveBackend::ideal);
  REQUIRE(tpu.fetched.size() == 1);
  CHECK(tpu.fetched[0] == row_max);
  CHECK(ideal.fetched[0] == row_max);
  REQUIRE(tpu.collectives.size() == 2);
  REQUIRE(ideal.collectives.size() == 2);
  // The max over cols (8) as 8 stacked copies of the 2 rows a core holds.
  CHECK(tpu.collectives[0].record.bytes_per_core == 8 * ideal.collectives[0].record.bytes_per_core);
  for (std::size_t i = 0; i < 2; ++i) {
    INFO(tpu.collectives[i].record.reason);
    CHECK(tpu.collectives[i].time_s > ideal.collectives[i].time_s);
    CHECK(tpu.collectives[i].record.bytes_per_core >= ideal.collectives[i].record.bytes_per_core);
  }
}
