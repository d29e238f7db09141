// Simulated times and link bytes, to the bit, of the collectives that run slowest on 65,536 chips (recursive
// and halving doubling, multiport; bidir_ring, which folds, beside them) on small pods: the figures of the
// binary before the executor took its torus routes from the platform rather than from SimGrid. Work on the
// executor's speed must leave them as they are. Each simulation is a child process (one engine per process).
#include <catch2/catch.hpp>
#include <cstdio>
#include <sstream>

#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/child_process.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

struct ExactCase {
  const char* topology;
  const char* algorithm;
  const char* bytes;
  const char* axes;
  double time_s;
  double busiest_link_bytes;
  std::uint64_t messages, simulated;
};

void check_exact(const ExactCase& c) {
  INFO(c.topology << " allreduce " << c.algorithm << " " << c.bytes << " along " << c.axes);
  const auto child = run_in_child([&] {
    const auto topology = topo::topology_from_spec(c.topology);
    Simulator simulator(topology);
    const auto r = simulator.run(testing::request_along(topology, "allreduce", c.algorithm, c.bytes, c.axes));
    const auto loads = simulator.link_loads();
    std::ostringstream out;
    out << std::hexfloat << r.time_s << " " << (loads.empty() ? 0.0 : loads.front().bytes) << " "
        << std::dec << r.messages << " " << r.simulated_messages;
    return out.str();
  });
  // std::hexfloat does not read back through operator>> on every library: strtod does.
  std::istringstream in(child.output);
  std::string time, busiest;
  std::uint64_t messages = 0, simulated = 0;
  in >> time >> busiest >> messages >> simulated;
  REQUIRE(in);
  CHECK(std::strtod(time.c_str(), nullptr) == c.time_s);
  CHECK(std::strtod(busiest.c_str(), nullptr) == c.busiest_link_bytes);
  CHECK(messages == c.messages);
  CHECK(simulated == c.simulated);
}

}  // namespace

TEST_CASE("recursive and halving doubling, multiport and bidir_ring keep their exact times on torus:8x4x4") {
  const ExactCase cases[] = {
      {"torus:8x4x4", "recursive_doubling", "4KiB", "x,y,z", 0x1.d106849e161cfp-17, 0x1.8p+14, 896, 896},
      {"torus:8x4x4", "recursive_doubling", "64MiB", "x,y,z", 0x1.cd82f2035467fp-7, 0x1.8p+28, 896, 896},
      {"torus:8x4x4", "halving_doubling", "4KiB", "x+y+z", 0x1.1ee8edafeb313p-15, 0x1.5p+13, 1792, 1792},
      {"torus:8x4x4", "halving_doubling", "64MiB", "x+y+z", 0x1.e687a729ea143p-9, 0x1.5p+27, 1792, 1792},
      {"torus:8x4x4", "multiport", "4KiB", "x,y,z", 0x1.b4cc718187137p-16, 0x1.99p+10, 19968, 19968},
      {"torus:8x4x4", "multiport", "64MiB", "x,y,z", 0x1.2dcf91c968469p-11, 0x1.8800440000000p+24, 19968, 19968},
      {"torus:8x4x4", "bidir_ring", "4KiB", "x+y+z", 0x1.0a68338ab3cf5p-12, 0x1.fcp+11, 65024, 256},
      {"torus:8x4x4", "bidir_ring", "64MiB", "x+y+z", 0x1.5c1cdd8114aa6p-10, 0x1.fcp+25, 65024, 256},
  };
  for (const auto& c : cases) check_exact(c);
}

TEST_CASE("the same on torus:6x5x3 with two cores a chip (odd sizes, loopbacks)") {
  const ExactCase cases[] = {
      {"torus:6x5x3,cores=2", "recursive_doubling", "4KiB", "core,x,y,z", 0x1.2f9f1a2c7fce4p-16, 0x1.8p+14, 1140,
       1140},
      {"torus:6x5x3,cores=2", "recursive_doubling", "64MiB", "core,x,y,z", 0x1.f3eec356e8eb5p-6, 0x1.8p+28, 1140,
       1140},
      {"torus:6x5x3,cores=2", "halving_doubling", "4KiB", "core+x+y+z", 0x1.cefc1e7ea223ap-15, 0x1.42p+13, 1896,
       1896},
      {"torus:6x5x3,cores=2", "halving_doubling", "64MiB", "core+x+y+z", 0x1.1b6698ba62ab6p-8, 0x1.42p+27, 1896,
       1896},
      {"torus:6x5x3,cores=2", "multiport", "4KiB", "core,x,y,z", 0x1.1d8cc24f2115dp-15, 0x1.c48p+12, 33430,
       33430},
      {"torus:6x5x3,cores=2", "multiport", "64MiB", "core,x,y,z", 0x1.621df618549ebp-11, 0x1.c44445p+26, 33840,
       33840},
      {"torus:6x5x3,cores=2", "bidir_ring", "4KiB", "core+x+y+z", 0x1.198f91e6fcb54p-10, 0x1.fd4p+12, 128880,
       128880},
      {"torus:6x5x3,cores=2", "bidir_ring", "64MiB", "core+x+y+z", 0x1.19db54ddc0d51p-9, 0x1.fd27d3p+26, 128880,
       128880},
  };
  for (const auto& c : cases) check_exact(c);
}
