// A pod with faults (topologies/faults.hpp) in the simulator: transfers detour around links that are down
// (times against a hand computation), slow links slow what crosses them as the prediction says, real data
// stays correct around dead links, and rings through them are refused.
#include <catch2/catch.hpp>
#include <random>

#include "sim/algorithm_registry.hpp"
#include "sim/bounds.hpp"
#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;
using namespace tpusim::sim;

TEST_CASE("a transfer across a link that is down takes the shortest way round it") {
  // torus-4x4 without the link (0,0)-(1,0): the shortest ways from chip (0,0) to (1,0) are three hops.
  const auto topology = topo::preset("torus-4x4").with_faults("down:0.0+x");
  const double alpha = topology.inter_chip().latency_s(), bandwidth = topology.inter_chip().bandwidth_Bps();
  const double bytes = 1 << 20;
  double detour_s = 0, prediction_s = 0;
  testing::in_child([&](std::ostream& out) {
    Simulator simulator(topology);
    CollectiveRequest request;
    request.kind = CollectiveKind::permute;
    request.elements = static_cast<std::uint64_t>(bytes / 4);
    request.permutation = {{0, 1}};
    out << simulator.run(request).time_s << " " << predict_alpha_beta(topology, request).time_s;
  }) >>
      detour_s >> prediction_s;
  CHECK(detour_s == Approx(3 * alpha + bytes / bandwidth).epsilon(1e-9));
  CHECK(prediction_s == Approx(detour_s).epsilon(1e-9));
}

TEST_CASE("a slow link slows the ring through it, as the prediction says") {
  // ring-8, the link 0-1 at a quarter of its bandwidth: every step of the unidirectional ring waits for the
  // transfer over it, contention free, so the simulated time is the alpha-beta critical path.
  const auto healthy = topo::preset("ring-8");
  const auto topology = healthy.with_faults("slow:0+x:0.25");
  double slow_s = 0, predicted_s = 0, uniform_s = 0;
  testing::in_child([&](std::ostream& out) {
    Simulator simulator(topology);
    const auto request = testing::request_along(topology, "allreduce", "ring", "1MiB");
    const auto prediction = predict_alpha_beta(topology, request);
    out << simulator.run(request).time_s << " " << prediction.time_s << " "
        << predict_alpha_beta(healthy, request).time_s;
  }) >>
      slow_s >> predicted_s >> uniform_s;
  CHECK(slow_s == Approx(predicted_s).epsilon(1e-9));
  // Hand computation for the healthy ring (sim/README.md, Closed forms): 2(p-1) steps of a + S/(pB).
  const double alpha = healthy.inter_chip().latency_s(), bandwidth = healthy.inter_chip().bandwidth_Bps();
  CHECK(uniform_s == Approx(14 * (alpha + (1 << 20) / 8.0 / bandwidth)).epsilon(1e-9));
  CHECK(slow_s > 2 * uniform_s);
}

TEST_CASE("collectives move real data correctly around links that are down") {
  std::mt19937 random(3);
  for (int trial = 0; trial < 3; ++trial) {
    const std::string faults = "random:" + std::to_string(1 + trial) + ":" + std::to_string(random() % 1000);
    INFO(faults);
    auto in = testing::in_child([&](std::ostream& out) {
      const auto topology = topo::preset("tpu-v2-32").with_faults(faults);
      Simulator simulator(topology);
      const std::vector<std::pair<const char*, const char*>> runs = {{"allreduce", "halving_doubling"},
                                                                     {"allreduce", "recursive_doubling"},
                                                                     {"reduce_scatter", "halving_doubling"},
                                                                     {"allgather", "halving_doubling"},
                                                                     {"alltoall", "pairwise"},
                                                                     {"broadcast", "binomial"}};
      for (const auto& [op, algorithm] : runs) {
        const auto run =
            testing::run_with_data(simulator, testing::request_along(topology, op, algorithm, "4KiB"));
        testing::write_data_line(out, std::string(op) + "/" + algorithm, run);
      }
    });
    CHECK(testing::check_data_lines(in) == 6);
  }
}

TEST_CASE(
    "the all-to-all bound uses the faulty pod's weakest halving plane, and the simulation respects it") {
  // torus-4x4 with the x links from column 0 to column 1 down: the plane between columns 0 and 1 cuts 4 live
  // links instead of 8, so the bisection term doubles (sim/README.md, Lower bounds: 2 n1 n2 S/p over the
  // cut's two ways).
  const auto healthy = topo::preset("torus-4x4");
  const auto faulty = healthy.with_faults("down:0.0+x;down:0.1+x;down:0.2+x;down:0.3+x");
  double simulated_s = 0, bound_s = 0;
  const auto request = testing::request_along(faulty, "alltoall", "direct", "1MiB");
  testing::in_child([&](std::ostream& out) {
    Simulator simulator(faulty);
    out << simulator.run(request).time_s << " " << lower_bound(faulty, request).bisection_s;
  }) >>
      simulated_s >> bound_s;
  const double pair_bytes = (1 << 20) / 16.0, bandwidth = healthy.inter_chip().bandwidth_Bps();
  CHECK(bound_s == Approx(2 * 8 * 8 * pair_bytes / (2 * 4 * bandwidth)).epsilon(1e-12));
  CHECK(lower_bound(healthy, request).bisection_s == Approx(bound_s / 2).epsilon(1e-12));
  CHECK(simulated_s >= bound_s);
}

TEST_CASE("rings through a link that is down are refused, rings that avoid it run") {
  const auto topology = topo::preset("tpu-v2-32").with_faults("down:0.1+y");
  auto along = [&](const char* algorithm, const char* axes) {
    return testing::request_along(topology, "allreduce", algorithm, "64KiB", axes);
  };
  CHECK_THROWS_WITH(check_algorithms(topology, along("bidir_ring", "all")),
                    Catch::Contains("bidir_ring runs over neighbour links") &&
                        Catch::Contains("would cross link 0.1+y, which is down"));
  CHECK_THROWS_WITH(check_algorithms(topology, along("multiport", "core,x,y")),
                    Catch::Contains("would cross link 0.1+y"));
  // The snake through core, x and y ("all") turns from row 1 to row 2 over link 0.1+y; rings along x never
  // use a y link; halving-doubling and recursive doubling detour.
  CHECK_NOTHROW(check_algorithms(topology, along("bidir_ring", "core+x")));
  CHECK_NOTHROW(check_algorithms(topology, along("halving_doubling", "all")));
  CHECK_NOTHROW(check_algorithms(topology, along("recursive_doubling", "core,x,y")));
}
