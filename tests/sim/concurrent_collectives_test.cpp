// Collectives running at the same time on one clock (Simulator::start_concurrent), against hand computations
// of SimGrid's fair sharing in the ideal network model: a transfer of B bytes over one link of latency a and
// bandwidth b takes a + B/b alone; two sharing the link each get b/2 once both are past their latency.
#include <catch2/catch.hpp>
#include <limits>

#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;
using tpusim::sim::testing::send;

namespace {

constexpr double kForever = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("collectives started together share a link fairly, and on disjoint links run as if alone") {
  const auto topology = topo::preset("ring-8");
  const double a = topology.inter_chip().latency_s(), b = topology.inter_chip().bandwidth_Bps();
  const std::uint64_t bytes = 1 << 20;
  Simulator simulator(topology);
  const double alone_s = simulator.run(send(0, 1, bytes)).time_s;
  REQUIRE(alone_s == Approx(a + bytes / b).epsilon(1e-12));

  // Two sends over the link from chip 0 to chip 1.
  double begin = simulator.now_s();
  const int first = simulator.start_concurrent({send(0, 1, bytes)});
  const int second = simulator.start_concurrent({send(0, 1, bytes)});
  CHECK(simulator.concurrent_in_flight() == 2);
  CHECK(simulator.advance_concurrent(kForever) == std::vector<int>{first, second});
  CHECK(simulator.now_s() - begin == Approx(a + 2.0 * bytes / b).epsilon(1e-12));
  CHECK(simulator.concurrent_in_flight() == 0);

  // Chips 0 -> 1 and 2 -> 3 share nothing: both take their time alone (a difference of later clock readings,
  // so equal up to their rounding).
  begin = simulator.now_s();
  simulator.start_concurrent({send(0, 1, bytes)});
  simulator.start_concurrent({send(2, 3, bytes)});
  CHECK(simulator.advance_concurrent(kForever).size() == 2);
  CHECK(simulator.now_s() - begin == Approx(alone_s).epsilon(1e-12));

  // Afterwards, a collective run alone takes its time alone again.
  CHECK(simulator.run(send(0, 1, bytes)).time_s == Approx(alone_s).epsilon(1e-12));
}

TEST_CASE("a collective started while another is in flight slows it from then on, as fair sharing says") {
  const auto topology = topo::preset("ring-8");
  const double a = topology.inter_chip().latency_s(), b = topology.inter_chip().bandwidth_Bps();
  const double bytes = 1 << 22;
  Simulator simulator(topology);
  const double origin = simulator.now_s();
  const int first = simulator.start_concurrent({send(0, 1, bytes)});
  // The second starts when the first has moved a quarter of its bytes; the clock stops there, nothing ended.
  const double stagger = 0.25 * bytes / b;
  CHECK(simulator.advance_concurrent(origin + stagger).empty());
  CHECK(simulator.now_s() == origin + stagger);
  const int second = simulator.start_concurrent({send(0, 1, bytes), send(0, 1, bytes)});  // two in turn

  // By hand: the first streams alone from a to stagger + a, then both share until the first is done.
  const double first_end = stagger + a + 2 * (bytes - b * stagger) / b;
  CHECK(simulator.advance_concurrent(kForever) == std::vector<int>{first});
  CHECK(simulator.now_s() - origin == Approx(first_end).epsilon(1e-12));
  // The second has bytes - b * stagger left of its first send, then its second send runs alone.
  const double second_end = first_end + b * stagger / b + a + bytes / b;
  CHECK(simulator.advance_concurrent(kForever) == std::vector<int>{second});
  CHECK(simulator.now_s() - origin == Approx(second_end).epsilon(1e-12));
}

TEST_CASE("the concurrent clock advances to a date when nothing is in flight") {
  Simulator simulator(topo::preset("ring-8"));
  const double later = simulator.now_s() + 1e-3;
  CHECK(simulator.advance_concurrent(later).empty());
  CHECK(simulator.now_s() == later);
}
