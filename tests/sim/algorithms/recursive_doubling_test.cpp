// Recursive doubling: its time on the TPU v2 pod against a hand computation, and the sizes where it wins.
// Real data on groups of every size is the registry test's (tests/sim/algorithm_registry_test.cpp).
#include <catch2/catch.hpp>

#include "../sim_test_support.hpp"
#include "sim/simulator.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

// Simulated seconds of each algorithm, in order, on its default group axes, in one child (one Simulator).
std::vector<double> simulated(const std::string& preset, const std::string& bytes,
                              const std::vector<std::pair<std::string, std::string>>& algorithms_and_axes) {
  auto in = testing::in_child([&](std::ostream& out) {
    const auto topology = topo::preset(preset);
    Simulator simulator(topology);
    for (const auto& [algorithm, axes] : algorithms_and_axes)
      out << simulator.run(testing::request_along(topology, "allreduce", algorithm, bytes, axes)).time_s
          << " ";
  });
  std::vector<double> times;
  for (double t; in >> t;) times.push_back(t);
  REQUIRE(times.size() == algorithms_and_axes.size());
  return times;
}

}  // namespace

TEST_CASE(
    "recursive doubling on the TPU v2 pod: one on-chip step, then partners 1, 2, 4, 8 hops along x and y") {
  // 4 bytes: every step is its route's latency plus 4 bytes at the link rate (cut-through); 1 + 2 + 4 + 8 =
  // 15 hops per torus dimension. Links shared by the transfers of steps whose partners are several hops away
  // (and by both cores' lines) add a few nanoseconds to 30 us, hence the tolerance; a hop more or less would
  // be 3%.
  const auto topology = topo::preset("tpu-v2-pod");
  const double hop = topology.inter_chip().latency_s(), bandwidth = topology.inter_chip().bandwidth_Bps();
  const double on_chip = topology.intra_chip().latency_s() + 4 / topology.intra_chip().bandwidth_Bps();
  const double expected = on_chip + 2 * (15 * hop + 4 * 4 / bandwidth);
  const auto times = simulated("tpu-v2-pod", "4", {{"recursive_doubling", "core,x,y"}});
  CHECK(times[0] == Approx(expected).epsilon(1e-3));
}

TEST_CASE("recursive doubling wins on small messages and loses on large ones") {
  const std::vector<std::pair<std::string, std::string>> algorithms = {
      {"recursive_doubling", "core,x,y"}, {"halving_doubling", "all"}, {"bucket2d", "core+x,y"}};
  const auto small = simulated("tpu-v2-pod", "1KiB", algorithms);
  CHECK(small[0] < small[1] / 2);
  CHECK(small[0] < small[2] / 2);
  const auto large = simulated("tpu-v2-pod", "16MiB", algorithms);
  CHECK(large[0] > 3 * large[1]);
  CHECK(large[0] > 3 * large[2]);
}
