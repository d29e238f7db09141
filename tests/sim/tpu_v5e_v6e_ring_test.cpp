// A ring allreduce along one dimension of the TPU v5e and v6e pods against the alpha-beta closed form worked
// by hand: each of the 16 rows of the 16x16 torus is a ring of 16 chips over its own links, wraparound
// included, so no two transfers share a link, and the 2(p-1) steps each take a + (S/p)/B.
#include <catch2/catch.hpp>

#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

double ring_allreduce_along_x_s(const std::string& preset) {
  double time_s = 0;
  testing::in_child([&](std::ostream& out) {
    const auto topology = topo::preset(preset);
    Simulator simulator(topology);
    out << simulator.run(testing::request_along(topology, "allreduce", "ring", "64MiB", "x")).time_s;
  }) >>
      time_s;
  return time_s;
}

}  // namespace

TEST_CASE("a 64 MiB ring allreduce along x of tpu-v5e-256 takes 30 x (1 us + 4 MiB / 50 GB/s)") {
  // p = 16, a = 1 us per hop, S/p = 64 MiB / 16 = 4194304 bytes, B = 400 GB/s / 4 ports / 2 = 50 GB/s:
  // 30 x (1e-6 + 83.88608e-6) s = 2.5465824 ms.
  CHECK(ring_allreduce_along_x_s("tpu-v5e-256") == Approx(2.5465824e-3).epsilon(1e-9));
}

TEST_CASE("a 64 MiB ring allreduce along x of tpu-v6e-256 takes 30 x (1 us + 4 MiB / 100 GB/s)") {
  // B = 800 GB/s / 4 ports / 2 = 100 GB/s: 30 x (1e-6 + 41.94304e-6) s = 1.2882912 ms.
  CHECK(ring_allreduce_along_x_s("tpu-v6e-256") == Approx(1.2882912e-3).epsilon(1e-9));
}
