// The vector unit's timing against hand computations: elementwise work, transcendentals at a user-set cost,
// and a lowered op that the vector unit, not HBM, bounds.
#include "mesh_tf/vector_unit.hpp"

#include <catch2/catch.hpp>

#include "mesh_tf/device_model.hpp"
#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;

namespace {
// TPU v2: 128 lanes x 8 sublanes x 2 ALUs at the clock of the 22.5 TFLOP/s 128 x 128 array.
constexpr double kV2VectorOps_per_s = 2048 * 22.5e12 / (2 * 128 * 128);
}  // namespace

TEST_CASE("vector unit: elementwise work and transcendentals by hand") {
  const DeviceModel v2 = DeviceModel::tpu_v2_core();
  REQUIRE(v2.vector_unit().has_value());
  CHECK(v2.vector_unit()->ops_per_cycle() == 2048);
  CHECK(kV2VectorOps_per_s == Approx(1.406e12).epsilon(1e-3));
  // 1e9 operations over 1 kB: 0.711 ms on the vector unit, 16 times the peak rate's 44 us.
  const auto add = v2.op_time(1e9, 1e3);
  CHECK(add.bound == ComputeBound::vector_unit);
  CHECK(add.time_s == Approx(1e9 / kV2VectorOps_per_s).epsilon(1e-12));
  // At the default cost a transcendental is one operation; at 10, the 1e8 of them among the 1e9 add 9e8.
  CHECK(v2.op_time(1e9, 1e3, 1e8).time_s == add.time_s);
  const DeviceModel costly = v2.with_vector_unit(VectorUnit(128, 8, 2, 10));
  CHECK(costly.op_time(1e9, 1e3, 1e8).time_s == Approx(1.9e9 / kV2VectorOps_per_s).epsilon(1e-12));
  // Bytes still bound where they take longer; with the unit's timing off, the peak rate.
  CHECK(v2.op_time(1e6, 1e9).bound == ComputeBound::hbm_bandwidth);
  const auto peak = v2.with_vector_unit_timing(false).op_time(1e9, 1e3, 1e8);
  CHECK(peak.bound == ComputeBound::flop_rate);
  CHECK(peak.time_s == Approx(1e9 / 22.5e12).epsilon(1e-12));
  // A straggler's vector unit is slowed with its clock.
  CHECK(v2.slowed(2).op_time(1e9, 1e3).time_s == Approx(2 * add.time_s).epsilon(1e-12));
}

TEST_CASE("vector unit: bad shapes and costs are input errors") {
  CHECK_THROWS_AS(VectorUnit(0, 8, 2), tpusim::InputError);
  CHECK_THROWS_AS(VectorUnit(128, 8, 5000), tpusim::InputError);
  CHECK_THROWS_AS(VectorUnit(128, 8, 2, 0.5), tpusim::InputError);
}

TEST_CASE("vector unit: a lowered exp is bound by it when transcendentals are costly") {
  // exp over 1M fp32 elements on one core: 8 MiB of HBM traffic (24 us); 1M operations on the vector unit
  // (0.75 us) at the default cost, 100M (71 us) at 100 operations per transcendental. relu is no
  // transcendental: its cost never changes.
  Graph g(1);
  const Tensor x = g.input("x", {Dimension("a", 1024), Dimension("b", 1024)});
  const Tensor y = exp(x, "exp");
  const Tensor z = relu(x, "relu");
  for (const double cost : {1.0, 100.0}) {
    ExecutionOptions options;
    options.numerics = false;
    options.outputs = {y, z};
    options.device = DeviceModel::tpu_v2_core().with_vector_unit(VectorUnit(128, 8, 2, cost));
    Executor executor(g, MeshShape(), LayoutRules(), nullptr, options);
    executor.run();
    const double memory_s = 8.0 * (1 << 20) / 350e9;
    for (const auto& op : executor.counters().ops) {
      INFO(op.name << " at cost " << cost);
      if (op.name == "exp")
        CHECK(op.time_s == Approx(std::max(cost * (1 << 20) / kV2VectorOps_per_s, memory_s)).epsilon(1e-12));
      if (op.name == "relu") CHECK(op.time_s == Approx(memory_s).epsilon(1e-12));
    }
  }
}
