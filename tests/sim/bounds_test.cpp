// Lower bounds hold for every algorithm, busbw stays within the injection bandwidth, links carry what
// sim/README.md (Lower bounds) says, and dimension-order routing explains the 8x8 all-to-all penalty.
#include "sim/bounds.hpp"

#include <catch2/catch.hpp>

#include "sim/algorithm_registry.hpp"
#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/chip_graph.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

void check_registry_against_bounds(const topo::Topology& topology) {
  Simulator simulator(topology);
  const double injection = injection_bandwidth_Bps(topology);
  for (const auto& row : algorithm_table()) {
    if (!topology.multislice() && row.needs_multislice) continue;
    for (const char* bytes : {"4KiB", "1MiB", "64MiB"}) {
      std::string axes = row.shape == GroupShape::two_dimensional ? "core+x,y" : "all";
      if (row.shape == GroupShape::per_axis) axes = topo::per_axis_group_axes(topology);
      if (row.kind == CollectiveKind::alltoall && std::string(row.name) == "direct") axes = "core+x";
      const auto request = testing::request_along(topology, to_string(row.kind), row.name, bytes, axes);
      const auto result = simulator.run(request);
      const auto bound = lower_bound(topology, request);
      const auto prediction = predict_alpha_beta(topology, request);
      INFO(to_string(row.kind) << " " << row.name << " " << bytes);
      CHECK(bound.time_s > 0);
      CHECK(result.time_s >= bound.time_s);
      CHECK(result.time_s >=
            prediction.time_s * (1 - 1e-9));  // clock differences round at 1e-16 of the clock
      CHECK(result.busbw_Bps <= injection);
      if (prediction.contention_free) CHECK(result.time_s == Approx(prediction.time_s).epsilon(1e-9));
    }
  }
}

}  // namespace

TEST_CASE("no algorithm beats its lower bound or its contention-free critical path") {
  check_registry_against_bounds(topo::preset("tpu-v2-32"));
}

TEST_CASE("no algorithm beats its lower bound on a multislice pod, the DCN term included") {
  check_registry_against_bounds(topo::topology_from_spec("multislice:2x(torus:2x2),cores=2,dcn_bw=20GB/s"));
}

TEST_CASE("no algorithm beats its lower bound on a twisted torus, whose bisection is larger") {
  check_registry_against_bounds(topo::topology_from_spec("torus:4x4x8,cores=2,twist_x=z+4,twist_y=z+4"));
}

TEST_CASE("busbw of a ring stays below one link and of a bidirectional ring below two") {
  const auto topology = topo::preset("ring-8");
  Simulator simulator(topology);
  const double link = topology.inter_chip().bandwidth_Bps();
  for (const char* algorithm : {"ring", "bidir_ring"}) {
    const auto result = simulator.run(testing::request_along(topology, "allreduce", algorithm, "1GiB"));
    const double limit = std::string(algorithm) == "ring" ? link : 2 * link;
    CHECK(result.busbw_Bps <= limit);
    CHECK(result.busbw_Bps > 0.99 * limit);  // large messages approach it
  }
}

TEST_CASE("a ring allreduce puts 2(p-1)/p S on every outgoing ring link") {
  const auto topology = topo::preset("ring-8");
  Simulator simulator(topology);
  simulator.run(testing::request_along(topology, "allreduce", "ring", "8MiB"));
  const auto loads = simulator.link_loads();
  const double p = 8, s = 8.0 * 1024 * 1024;
  REQUIRE(loads.size() == 8);  // one direction of each of the 8 links
  for (const auto& load : loads) {
    INFO(load.link);
    CHECK(load.bytes == Approx(2 * (p - 1) / p * s).epsilon(1e-12));
    CHECK(load.busy_s == Approx(load.bytes / topology.inter_chip().bandwidth_Bps()));
  }
}

TEST_CASE("link bytes are conserved: the sum over links is bytes times hops") {
  const auto topology = topo::preset("torus-4x4");
  Simulator simulator(topology);
  const auto request = testing::request_along(topology, "alltoall", "pairwise", "64KiB");
  simulator.run(request);
  double carried = 0;
  for (const auto& load : simulator.link_loads()) carried += load.bytes;
  // Pairwise exchange moves S/p from every member to every other, over the dimension-order hop count.
  const double pair_bytes = 64.0 * 1024 / 16;
  double expected = 0;
  const auto& ranks = request.groups.front().ranks;
  for (const int a : ranks) {
    for (const int b : ranks) {
      if (a != b) expected += pair_bytes * topo::hop_count(topology, a, b);
    }
  }
  CHECK(carried == Approx(expected).epsilon(1e-12));
}

TEST_CASE("dimension-order routing puts 80 pair messages on the busiest 8x8 link where bisection needs 64") {
  const auto topology = topo::preset("torus-8x8");
  const auto request = testing::request_along(topology, "alltoall", "direct", "64MiB");
  const auto prediction = predict_alpha_beta(topology, request);
  const auto bound = lower_bound(topology, request);
  const double m = 64.0 * 1024 * 1024 / 64;
  const double b = topology.inter_chip().bandwidth_Bps();
  CHECK(prediction.max_link_bytes == Approx(80 * m).epsilon(1e-12));
  CHECK(bound.bisection_s == Approx(64 * m / b).epsilon(1e-12));
  CHECK(bound.binding == "bisection");
  CHECK_FALSE(prediction.contention_free);
}

TEST_CASE("the simulated 8x8 all-to-all takes the busiest link's load plus latency") {
  const auto topology = topo::preset("torus-8x8");
  Simulator simulator(topology);
  const auto request = testing::request_along(topology, "alltoall", "direct", "16MiB");
  const auto result = simulator.run(request);
  const auto prediction = predict_alpha_beta(topology, request);
  const auto bound = lower_bound(topology, request);
  CHECK(result.time_s >= prediction.max_link_time_s);
  CHECK(result.time_s <= prediction.max_link_time_s + 8 * topology.inter_chip().latency_s());
  CHECK(result.time_s / bound.time_s == Approx(1.25).epsilon(0.01));
}

TEST_CASE("lower bounds follow sim/README.md") {
  const auto topology = topo::preset("ring-8");
  const auto allreduce = lower_bound(topology, testing::request_along(topology, "allreduce", "ring", "8MiB"));
  const double s = 8.0 * 1024 * 1024, b = topology.inter_chip().bandwidth_Bps();
  // Injection on a 1D torus of single-core chips: two links.
  CHECK(injection_bandwidth_Bps(topology) == Approx(2 * b));
  CHECK(allreduce.core_injection_s == Approx(2 * 7.0 / 8 * s / (2 * b)));
  // One core per chip: the chip term counts the same bytes over the same two links.
  CHECK(allreduce.chip_injection_s == Approx(2 * 7.0 * s / (8 * 2 * b)));
  CHECK(allreduce.latency_s == Approx(3 * topology.inter_chip().latency_s()));
  const auto broadcast =
      lower_bound(topology, testing::request_along(topology, "broadcast", "binomial", "8MiB"));
  CHECK(broadcast.latency_s == Approx(4 * topology.inter_chip().latency_s()));  // diameter of an 8-ring
}

TEST_CASE("the chip injection bound counts a chip's cores together, whatever the on-chip link") {
  // The pod's 64 MiB allreduce over all 512 cores: 256 chips must each send 2 * 255/256 * 64 MiB over their
  // four links (0.539 ms at 62 GB/s), and a faster on-chip link cannot lower that.
  const double s = 64.0 * 1024 * 1024;
  for (const std::string spec : {"tpu-v2-pod", "torus:16x16,cores=2,bw=62GBps,intra_bw=1e15"}) {
    const auto topology = topo::topology_from_spec(spec);
    INFO(spec);
    const double b = topology.inter_chip().bandwidth_Bps();
    const auto bound =
        lower_bound(topology, testing::request_along(topology, "allreduce", "bucket2d", "64MiB", "core+x,y"));
    CHECK(bound.chip_injection_s == Approx(2 * 255.0 / 256 * s / (4 * b)).epsilon(1e-12));
    CHECK(bound.binding == "chip_injection");
    CHECK(bound.time_s == bound.chip_injection_s);
  }
  const auto pod = topo::preset("tpu-v2-pod");
  CHECK(lower_bound(pod, testing::request_along(pod, "allreduce", "bucket2d", "64MiB", "core+x,y")).time_s ==
        Approx(0.539e-3).epsilon(1e-3));
  // Groups along core+x (16 chips each, 16 groups): 2 * 15 S per group over 256 chips of four links.
  const auto along_x = lower_bound(pod, testing::request_along(pod, "allreduce", "ring", "64MiB", "core+x"));
  CHECK(along_x.chip_injection_s ==
        Approx(16 * 2 * 15.0 * s / (256 * 4 * pod.inter_chip().bandwidth_Bps())).epsilon(1e-12));
  // Groups on one chip (the two cores): nothing crosses chips; the core's own injection binds.
  const auto on_chip = lower_bound(pod, testing::request_along(pod, "allreduce", "ring", "64MiB", "core"));
  CHECK(on_chip.chip_injection_s == 0);
  CHECK(on_chip.binding == "core_injection");
}

TEST_CASE("chip injection: all-to-all, allgather, broadcast and permute count what crosses chips") {
  // A 2x2 torus of 2-core chips, one group of all 8 cores: 4 chips with 2 members each, 4 links per chip.
  const auto topology = topo::topology_from_spec("torus:2x2,cores=2");
  const double s = 1024.0 * 1024, b = topology.inter_chip().bandwidth_Bps(), capacity = 4 * 4 * b;
  auto bound_of = [&](const char* op, const char* algorithm) {
    return lower_bound(topology, testing::request_along(topology, op, algorithm, "1MiB", "all"));
  };
  CHECK(bound_of("allgather", "ring").chip_injection_s == Approx(3 * s / capacity));
  CHECK(bound_of("reduce_scatter", "ring").chip_injection_s == Approx(3 * s / capacity));
  // Each member sends S/8 to each of the 6 members on other chips.
  CHECK(bound_of("alltoall", "pairwise").chip_injection_s == Approx(8 * 6 * s / 8 / capacity));
  CHECK(bound_of("broadcast", "binomial").chip_injection_s == Approx(3 * s / capacity));
}
