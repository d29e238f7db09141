// Simulated timing: every collective goes through sim::Simulator; numerics and timing-only runs give the same
// timeline; the step obeys max(compute, comm) <= step <= compute + comm.
#include <algorithm>
#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/optimizer.hpp"
#include "sim/algorithm_registry.hpp"
#include "tests/mesh_tf/battery.hpp"
#include "tests/mesh_tf/sim_for_tests.hpp"
#include "tests/mesh_tf/two_layer.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;

namespace {

StepResult run_two_layer(tpusim::sim::Simulator* simulator, bool numerics, const std::string& mesh,
                         const std::string& rules, OverlapPolicy overlap = OverlapPolicy::dependencies) {
  auto t = two_layer_example(64, 128, 256);
  ExecutionOptions options;
  options.numerics = numerics;
  options.overlap = overlap;
  options.outputs = {t.y, t.grads[0], t.grads[1], t.grads[2]};
  Executor executor(*t.graph, MeshShape::parse(mesh), LayoutRules::parse(rules), simulator, options);
  executor.feed(t.x, random_values(64 * 128, 1));
  executor.feed(t.dy, random_values(64 * 128, 2));
  return executor.run({t.y});
}

}  // namespace

TEST_CASE("numerics and timing-only runs give the identical timeline") {
  auto simulator = make_test_simulator(tpusim::topo::preset("tpu-v2-32"));
  const auto numeric = run_two_layer(simulator.get(), true, "rows:4;cols:8", "batch:rows;hidden:cols");
  const auto timing = run_two_layer(simulator.get(), false, "rows:4;cols:8", "batch:rows;hidden:cols");
  REQUIRE(numeric.timeline.entries.size() == timing.timeline.entries.size());
  for (std::size_t i = 0; i < numeric.timeline.entries.size(); ++i) {
    CHECK(numeric.timeline.entries[i].start_s == timing.timeline.entries[i].start_s);
    CHECK(numeric.timeline.entries[i].end_s == timing.timeline.entries[i].end_s);
  }
  CHECK(numeric.timeline.step_time_s == timing.timeline.step_time_s);
  CHECK(numeric.fetched.size() == 1);
  CHECK(timing.fetched.empty());
  // Four allreduces (y, dx over cols; dw, dv over rows), each simulated with a positive time.
  REQUIRE(timing.collectives.size() == 4);
  for (const auto& c : timing.collectives) CHECK(c.time_s > 0);
}

TEST_CASE("step time lies between the stream maximum and the stream sum") {
  auto simulator = make_test_simulator(tpusim::topo::preset("ring-8"));
  const auto r = run_two_layer(simulator.get(), false, "all:8", "batch:all");
  const auto& tl = r.timeline;
  CHECK(tl.comm_s > 0);
  CHECK(tl.compute_s > 0);
  CHECK(tl.step_time_s >= std::max(tl.compute_s, tl.comm_s) - 1e-15);
  CHECK(tl.step_time_s <= tl.compute_s + tl.comm_s + 1e-15);
  CHECK(tl.exposed_comm_s <= tl.comm_s + 1e-15);
  CHECK(tl.step_time_s == Approx(tl.compute_s + tl.exposed_comm_s));
  // A data-parallel dv allreduce overlaps the dw and dx matmuls that follow it.
  CHECK(tl.exposed_comm_s < tl.comm_s);
  CHECK(tl.summary().find("allreduce[all]") != std::string::npos);
}

TEST_CASE("without overlap the step is the sum of every op and collective, each after the one before") {
  auto simulator = make_test_simulator(tpusim::topo::preset("ring-8"));
  const auto overlapped = run_two_layer(simulator.get(), false, "all:8", "batch:all");
  const auto serial = run_two_layer(simulator.get(), false, "all:8", "batch:all", OverlapPolicy::none);
  const auto& tl = serial.timeline;
  // The same ops and collectives take the same times; only their placement changes.
  CHECK(tl.compute_s == Approx(overlapped.timeline.compute_s).epsilon(1e-12));
  CHECK(tl.comm_s == Approx(overlapped.timeline.comm_s).epsilon(1e-12));
  CHECK(tl.step_time_s == Approx(tl.compute_s + tl.comm_s).epsilon(1e-12));
  CHECK(tl.exposed_comm_s == Approx(tl.comm_s).epsilon(1e-12));
  CHECK(overlapped.timeline.step_time_s < tl.step_time_s);
  // One stream: no two entries overlap in time, and every compute step that follows a collective waited for
  // it.
  std::vector<const TimelineEntry*> entries;
  for (const auto& e : tl.entries) entries.push_back(&e);
  std::sort(entries.begin(), entries.end(),
            [](const auto* a, const auto* b) { return a->start_s < b->start_s; });
  for (std::size_t i = 1; i < entries.size(); ++i) {
    CHECK(entries[i]->start_s >= entries[i - 1]->end_s - 1e-15);
    if (!entries[i]->is_comm && entries[i - 1]->is_comm)
      CHECK(entries[i]->waited_for == entries[i - 1]->step);
  }
  CHECK(overlap_policies().parse("none") == OverlapPolicy::none);
}

TEST_CASE("compute time follows the device roofline") {
  auto t = two_layer_example(1024, 1024, 4096);
  ExecutionOptions options;
  options.numerics = false;
  options.device = DeviceModel::tpu_v2_core().with_matrix_unit_timing(false).with_vector_unit_timing(false);
  // h alone (under XLA's fusion the relu that alone reads it would join it: fusion_test.cpp has that case).
  options.fusion = FusionPolicy::none;
  Executor executor(*t.graph, MeshShape(), LayoutRules(), nullptr, options);
  const auto r = executor.run();
  const auto& device = options.device;
  for (const auto& op : executor.counters().ops) {
    if (op.name == "h") {
      CHECK(op.flops_per_core == 2.0 * 1024 * 1024 * 4096);
      CHECK(op.time_s == Approx(std::max(op.flops_per_core / device.peak_flops(),
                                         op.hbm_bytes_per_core / device.hbm_bandwidth_Bps())));
    }
  }
  CHECK(r.timeline.comm_s == 0);
  CHECK(DeviceModel::tpu_v3_core().peak_flops() == 61.5e12);
  // The valid names as the table lists them, so that a new device needs no edit here.
  CHECK_THROWS_WITH(DeviceModel::preset("tpu-v6f-core"),
                    "unknown device 'tpu-v6f-core' (did you mean 'tpu-v6e-core'?); valid devices are " +
                        tpusim::join(DeviceModel::preset_names()));
}

TEST_CASE("an op's time names the roofline term that set it, the overhead on top") {
  // 1 TFLOP/s, 100 GB/s, 1 us per op: 1 MFLOP over 10 kB is 1 us of compute (the memory needs 0.1 us); 1
  // kFLOP over 1 MB is 10 us of memory.
  const DeviceModel device("hand", 1e12, 1e11, 1ull << 30, 1e-6);
  const auto compute = device.op_time(1e6, 1e4);
  CHECK(compute.bound == ComputeBound::flop_rate);
  CHECK(compute.overhead_s == 1e-6);
  CHECK(compute.time_s == Approx(2e-6));
  const auto memory = device.op_time(1e3, 1e6);
  CHECK(memory.bound == ComputeBound::hbm_bandwidth);
  CHECK(memory.time_s == Approx(11e-6));
  CHECK(std::string(to_string(memory.bound)) == "HBM bandwidth");
}

TEST_CASE("a mesh whose size differs from the topology is an input error") {
  auto simulator = make_test_simulator(tpusim::topo::preset("ring-8"));
  auto t = two_layer_example(8, 8, 8);
  CHECK_THROWS_WITH(Executor(*t.graph, MeshShape::parse("a:2;b:2"), LayoutRules(), simulator.get()),
                    "mesh a:2;b:2 has 4 cores but the topology ring-8 has 8");
}

TEST_CASE("timing-only lowering of a 512-core two-layer step with a billion parameters") {
  auto simulator = make_test_simulator(tpusim::topo::preset("tpu-v2-pod"));
  auto t = two_layer_example(8192, 16384, 32768);  // 2 x 16384 x 32768 = 1.07e9 parameters
  ExecutionOptions options;
  options.numerics = false;
  options.outputs = {t.y, t.grads[0], t.grads[1], t.grads[2]};
  Executor executor(*t.graph, MeshShape::parse("rows:16;cols:32"),
                    LayoutRules::parse("batch:rows;hidden:cols"), simulator.get(), options);
  CHECK(executor.mapping().note() == "cols = core+x, rows = y");
  const auto r = executor.run();
  REQUIRE(r.collectives.size() == 4);
  CHECK(r.timeline.step_time_s > 0);
  CHECK(r.timeline.step_time_s < 10);
}

TEST_CASE("collective algorithms are chosen per mesh dimension and checked") {
  auto simulator = make_test_simulator(tpusim::topo::preset("tpu-v2-32"));
  auto t = two_layer_example(64, 32, 64);
  ExecutionOptions options;
  options.numerics = false;
  options.outputs = {t.y, t.grads[0], t.grads[1], t.grads[2]};
  options.algorithms = {{"rowz", "ring"}};
  CHECK_THROWS_WITH(
      Executor(*t.graph, MeshShape::parse("rows:4;cols:8"), LayoutRules::parse("batch:rows;hidden:cols"),
               simulator.get(), options),
      "collective algorithm 'ring' given for mesh dimension 'rowz', but mesh rows:4;cols:8 has no such "
      "dimension (did you mean 'rows'?)");
  // A unidirectional ring over rows takes longer than the default bidirectional ring.
  options.algorithms = {};
  Executor bidir(*t.graph, MeshShape::parse("rows:4;cols:8"), LayoutRules::parse("batch:rows;hidden:cols"),
                 simulator.get(), options);
  options.algorithms = {{"rows", "ring"}};
  Executor ring(*t.graph, MeshShape::parse("rows:4;cols:8"), LayoutRules::parse("batch:rows;hidden:cols"),
                simulator.get(), options);
  const auto a = bidir.run(), b = ring.run();
  REQUIRE(a.collectives.size() == b.collectives.size());
  for (std::size_t i = 0; i < a.collectives.size(); ++i) {
    if (a.collectives[i].record.mesh_dims == std::vector<std::string>{"rows"}) {
      CHECK(b.collectives[i].time_s > a.collectives[i].time_s);
    } else {
      CHECK(b.collectives[i].time_s == a.collectives[i].time_s);
    }
  }
  // auto chooses per collective by simulating what it stands for, the default bidirectional ring among them:
  // never slower than it (up to the clock's rounding), on the 4-byte reductions much faster.
  options.algorithms = {{"rows", "auto"}, {"cols", "auto"}};
  Executor chosen(*t.graph, MeshShape::parse("rows:4;cols:8"), LayoutRules::parse("batch:rows;hidden:cols"),
                  simulator.get(), options);
  const auto c = chosen.run();
  REQUIRE(c.collectives.size() == a.collectives.size());
  for (std::size_t i = 0; i < a.collectives.size(); ++i) {
    INFO(c.collectives[i].record.op_name << " " << c.collectives[i].record.reason);
    CHECK(c.collectives[i].time_s > 0);
    CHECK(c.collectives[i].time_s <= a.collectives[i].time_s * (1 + 1e-9));
  }
  // Found when the executor is built, before any step runs.
  options.algorithms = {{"cols", "no_such_algorithm"}};
  auto build = [&] {
    Executor(*t.graph, MeshShape::parse("rows:4;cols:8"), LayoutRules::parse("batch:rows;hidden:cols"),
             simulator.get(), options);
  };
  CHECK_THROWS_AS(build(), CollectiveAlgorithmError);
  CHECK_THROWS_WITH(build(),
                    "allreduce over mesh dimension cols (allreduce[cols] y): unknown allreduce algorithm "
                    "'no_such_algorithm'; valid allreduce algorithms are " +
                        tpusim::join(tpusim::sim::algorithm_names(tpusim::sim::CollectiveKind::allreduce)));
}

TEST_CASE("an algorithm without an allgather is refused for a mesh dimension that needs an allconcat") {
  auto simulator = make_test_simulator(tpusim::topo::preset("tpu-v2-32"));
  Graph g;
  const Tensor x = g.input("x", Shape{{"batch", 8}, {"d", 16}});
  const Tensor gathered = rename(x, "batch", "rows_all");  // batch is split over rows, rows_all is not
  ExecutionOptions options;
  options.collective_backend = CollectiveBackend::ideal;  // the TPU backend's allconcat is an allreduce
  options.numerics = false;
  options.outputs = {gathered};
  options.algorithms = {{"rows", "bucket2d"}};
  auto build = [&] {
    Executor(g, MeshShape::parse("rows:4;cols:8"), LayoutRules::parse("batch:rows"), simulator.get(),
             options);
  };
  CHECK_THROWS_AS(build(), CollectiveAlgorithmError);
  CHECK_THROWS_WITH(build(), Catch::Contains("allgather over mesh dimension rows") &&
                                 Catch::Contains("unknown allgather algorithm 'bucket2d'"));
}

// auto's winner was simulated alone to be chosen (on lv08 no candidate is timed by its critical path), so a
// timing-only step takes that simulation as its time instead of simulating it again; a named algorithm is
// simulated once, at its first step.
TEST_CASE("a timing-only step reuses the simulation that chose each auto collective") {
  tpusim::sim::SimOptions lv08;
  lv08.network = tpusim::sim::NetworkModel::lv08;
  tpusim::sim::Simulator simulator(tpusim::topo::preset("tpu-v2-32"), lv08);
  auto t = two_layer_example(64, 32, 64);
  ExecutionOptions options;
  options.numerics = false;
  options.outputs = {t.y, t.grads[0], t.grads[1], t.grads[2]};
  options.algorithms = {{"rows", "auto"}, {"cols", "auto"}};
  Executor chosen(*t.graph, MeshShape::parse("rows:4;cols:8"), LayoutRules::parse("batch:rows;hidden:cols"),
                  &simulator, options);
  const auto after_choosing = simulator.collectives_simulated();
  CHECK(after_choosing > 0);
  const auto step = chosen.run();
  CHECK(simulator.collectives_simulated() == after_choosing);
  for (const auto& c : step.collectives) CHECK(c.time_s > 0);
  options.algorithms = {{"rows", "bidir_ring"}, {"cols", "bidir_ring"}};
  Executor named(*t.graph, MeshShape::parse("rows:4;cols:8"), LayoutRules::parse("batch:rows;hidden:cols"),
                 &simulator, options);
  named.run();
  CHECK(simulator.collectives_simulated() > after_choosing);
}
