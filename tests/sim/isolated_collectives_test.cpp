// Simulator with isolated collectives (SimOptions::isolated_collectives): every collective is simulated in a
// child forked from an engine whose clock never moved, so a time depends on the request alone, bit for bit,
// which the search's collective-time cache relies on.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <random>

#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;
using namespace tpusim::sim;
using tpusim::sim::testing::send;

namespace {

CollectiveRequest allreduce(const topo::Topology& topology, std::uint64_t elements,
                            const std::string& algorithm) {
  CollectiveRequest request;
  request.algorithms = resolve_algorithms(request.kind, {algorithm});
  request.groups = {testing::make_group({topology.num_cores()})};
  request.elements = elements;
  return request;
}

SimOptions isolated() {
  SimOptions options;
  options.isolated_collectives = true;
  return options;
}

}  // namespace

TEST_CASE("isolated collectives take the time of a fresh simulation whatever ran before, bit for bit") {
  const auto topology = topo::preset("tpu-v2-32");
  std::mt19937 random(7);
  std::vector<CollectiveRequest> requests;
  for (int i = 0; i < 6; ++i) {
    const std::uint64_t elements = 1000 + random() % (1 << 22);
    requests.push_back(allreduce(topology, elements, i % 2 ? "bidir_ring" : "ring"));
  }
  // References: each request alone on a fresh engine (its own process), which starts at clock 0.
  std::vector<double> fresh_s;
  for (const auto& request : requests) {
    const ChildResult child = run_in_child([&]() -> std::string {
      Simulator fresh(topology);
      return fmt::format("{}", fresh.run(request).time_s);
    });
    fresh_s.push_back(std::stod(child.output));
  }
  Simulator simulator(topology, isolated());
  REQUIRE(simulator.isolated_collectives());
  // In order, backwards, and each twice: always the fresh time, and the clock never moves.
  for (std::size_t i = 0; i < requests.size(); ++i) CHECK(simulator.run(requests[i]).time_s == fresh_s[i]);
  for (std::size_t i = requests.size(); i-- > 0;) {
    CHECK(simulator.run(requests[i]).time_s == fresh_s[i]);
    CHECK(simulator.probe(requests[i]).time_s == fresh_s[i]);
  }
  CHECK(simulator.now_s() == 0);
}

TEST_CASE("an isolated send takes alpha + bytes / bandwidth, and its other figures come back whole") {
  const auto topology = topo::preset("ring-8");
  const double a = topology.inter_chip().latency_s(), b = topology.inter_chip().bandwidth_Bps();
  Simulator simulator(topology, isolated());
  const std::uint64_t bytes = 3 << 20;
  const CollectiveResult result = simulator.run(send(0, 1, bytes));
  CHECK(result.time_s == Approx(a + bytes / b).epsilon(1e-12));
  CHECK(result.messages == 1);
  CHECK(result.bytes_per_member == bytes);
  CHECK(result.algbw_Bps == static_cast<double>(bytes) / result.time_s);
}

TEST_CASE("isolated collectives refuse data, traces and concurrency with one clear error") {
  const auto topology = topo::preset("ring-8");
  SimOptions traced = isolated();
  traced.record_trace = true;
  CHECK_THROWS_AS(Simulator(topology, traced), InputError);
  Simulator simulator(topology, isolated());
  CollectiveRequest with_data = send(0, 1, 1024);
  Buffers buffers{{0, std::vector<float>(256, 1.0f)}, {1, std::vector<float>(256, 0.0f)}};
  with_data.data = &buffers;
  CHECK_THROWS_AS(simulator.run(with_data), InputError);
  CHECK_THROWS_AS(simulator.start_concurrent({send(0, 1, 1024)}), InputError);
  // A bad request is found in the parent, as without isolation.
  CHECK_THROWS_AS(simulator.run(send(0, 99, 1024)), InputError);
}

TEST_CASE("isolated results are remembered by the whole request, and only when asked to") {
  const auto topology = topo::preset("tpu-v2-32");
  SimOptions options = isolated();
  Simulator simulator(topology, options);
  const CollectiveRequest a = allreduce(topology, 1 << 20, "ring");
  CollectiveRequest other_size = a, other_algorithm = a, other_group = a, other_reduction = a;
  other_size.elements += 1;
  other_algorithm.algorithms = resolve_algorithms(other_algorithm.kind, {"bidir_ring"});
  std::swap(other_group.groups[0].ranks[0], other_group.groups[0].ranks[1]);
  other_reduction.op = ReduceOp::max;
  const double a_s = simulator.run(a).time_s;
  CHECK(simulator.collectives_simulated() == 1);
  CHECK(simulator.run(a).time_s == a_s);
  CHECK(simulator.probe(a).time_s == a_s);
  CHECK(simulator.collectives_simulated() == 1);
  // Any field the simulation reads makes another request; the label does not.
  for (const auto* r : {&other_size, &other_algorithm, &other_group, &other_reduction}) simulator.run(*r);
  CHECK(simulator.collectives_simulated() == 5);
  CollectiveRequest relabelled = a;
  relabelled.label = "another name";
  simulator.run(relabelled);
  CHECK(simulator.collectives_simulated() == 5);
}

TEST_CASE("without remembering, every isolated collective is simulated again, to the same bits") {
  const auto topology = topo::preset("tpu-v2-32");
  SimOptions options = isolated();
  options.remember_isolated_results = false;
  Simulator simulator(topology, options);
  const CollectiveRequest a = allreduce(topology, 3 << 18, "bidir_ring");
  const double first_s = simulator.run(a).time_s;
  CHECK(simulator.run(a).time_s == first_s);
  CHECK(simulator.collectives_simulated() == 2);
}
