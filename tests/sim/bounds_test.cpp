// Lower bounds hold for every algorithm, busbw stays within the injection bandwidth, links carry what
// bounds.md says, and dimension-order routing explains the 8x8 all-to-all penalty.
#include "sim/bounds.hpp"

#include <catch2/catch.hpp>

#include "sim/algorithm_registry.hpp"
#include "sim/request_builder.hpp"
#include "sim/simulator.hpp"
#include "topologies/chip_graph.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;

TEST_CASE("no algorithm beats its lower bound or its contention-free critical path") {
  const auto topology = topo::preset("tpu-v2-32");
  Simulator simulator(topology);
  const double injection = injection_bandwidth_Bps(topology);
  for (const auto& info : algorithm_table()) {
    for (const char* bytes : {"4KiB", "1MiB", "64MiB"}) {
      CollectiveSpec spec;
      spec.op = to_string(info.kind);
      spec.algorithms = info.name;
      spec.bytes = bytes;
      if (info.kind == CollectiveKind::alltoall && info.name == "direct") spec.group_axes = "core+x";
      const auto built = build_request(topology, spec);
      const auto result = simulator.run(built.request);
      const auto bound = lower_bound(topology, built.request);
      const auto prediction = predict_alpha_beta(topology, built.request);
      INFO(spec.op << " " << info.name << " " << bytes);
      CHECK(bound.time_s > 0);
      CHECK(result.time_s >= bound.time_s);
      CHECK(result.time_s >=
            prediction.time_s * (1 - 1e-9));  // clock differences round at 1e-16 of the clock
      CHECK(result.busbw_Bps <= injection);
      if (prediction.contention_free) CHECK(result.time_s == Approx(prediction.time_s).epsilon(1e-9));
    }
  }
}

TEST_CASE("busbw of a ring stays below one link and of a bidirectional ring below two") {
  const auto topology = topo::preset("ring-8");
  Simulator simulator(topology);
  const double link = topology.inter_chip().bandwidth_Bps();
  for (const char* algorithm : {"ring", "bidir_ring"}) {
    CollectiveSpec spec;
    spec.algorithms = algorithm;
    spec.bytes = "1GiB";
    const auto result = simulator.run(build_request(topology, spec).request);
    const double limit = std::string(algorithm) == "ring" ? link : 2 * link;
    CHECK(result.busbw_Bps <= limit);
    CHECK(result.busbw_Bps > 0.99 * limit);  // large messages approach it
  }
}

TEST_CASE("a ring allreduce puts 2(p-1)/p S on every outgoing ring link") {
  const auto topology = topo::preset("ring-8");
  Simulator simulator(topology);
  CollectiveSpec spec;
  spec.algorithms = "ring";
  spec.bytes = "8MiB";
  simulator.run(build_request(topology, spec).request);
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
  CollectiveSpec spec;
  spec.op = "alltoall";
  spec.algorithms = "pairwise";
  spec.bytes = "64KiB";
  const auto built = build_request(topology, spec);
  simulator.run(built.request);
  double carried = 0;
  for (const auto& load : simulator.link_loads()) carried += load.bytes;
  // Pairwise exchange moves S/p from every member to every other, over the dimension-order hop count.
  const double pair_bytes = 64.0 * 1024 / 16;
  double expected = 0;
  const auto& ranks = built.request.groups.front().ranks;
  for (const int a : ranks) {
    for (const int b : ranks) {
      if (a != b) expected += pair_bytes * topo::hop_count(topology, a, b);
    }
  }
  CHECK(carried == Approx(expected).epsilon(1e-12));
}

TEST_CASE("dimension-order routing puts 80 pair messages on the busiest 8x8 link where bisection needs 64") {
  const auto topology = topo::preset("torus-8x8");
  CollectiveSpec spec;
  spec.op = "alltoall";
  spec.algorithms = "direct";
  spec.bytes = "64MiB";
  const auto built = build_request(topology, spec);
  const auto prediction = predict_alpha_beta(topology, built.request);
  const auto bound = lower_bound(topology, built.request);
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
  CollectiveSpec spec;
  spec.op = "alltoall";
  spec.algorithms = "direct";
  spec.bytes = "16MiB";
  const auto built = build_request(topology, spec);
  const auto result = simulator.run(built.request);
  const auto prediction = predict_alpha_beta(topology, built.request);
  const auto bound = lower_bound(topology, built.request);
  CHECK(result.time_s >= prediction.max_link_time_s);
  CHECK(result.time_s <= prediction.max_link_time_s + 8 * topology.inter_chip().latency_s());
  CHECK(result.time_s / bound.time_s == Approx(1.25).epsilon(0.01));
}

TEST_CASE("lower bounds follow bounds.md") {
  const auto topology = topo::preset("ring-8");
  CollectiveSpec spec;
  spec.bytes = "8MiB";
  spec.algorithms = "ring";
  const auto allreduce = lower_bound(topology, build_request(topology, spec).request);
  const double s = 8.0 * 1024 * 1024, b = topology.inter_chip().bandwidth_Bps();
  // Injection on a 1D torus of single-core chips: two links.
  CHECK(injection_bandwidth_Bps(topology) == Approx(2 * b));
  CHECK(allreduce.bandwidth_s == Approx(2 * 7.0 / 8 * s / (2 * b)));
  CHECK(allreduce.latency_s == Approx(3 * topology.inter_chip().latency_s()));
  spec.op = "broadcast";
  spec.algorithms = "binomial";
  const auto broadcast = lower_bound(topology, build_request(topology, spec).request);
  CHECK(broadcast.latency_s == Approx(4 * topology.inter_chip().latency_s()));  // diameter of an 8-ring
}
