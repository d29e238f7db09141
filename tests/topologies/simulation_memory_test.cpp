#include "topologies/simulation_memory.hpp"

#include <catch2/catch.hpp>

#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::topo;

TEST_CASE("the TPU pods and the largest benchmarked pods fit the simulator's memory limit") {
  for (const char* spec : {"tpu-v2-pod", "tpu-v3-pod", "torus:32x64,cores=2", "torus:256x256"}) {
    INFO(spec);
    CHECK_NOTHROW(require_simulation_fits(topology_from_spec(spec)));
  }
  CHECK(estimated_simulation_bytes(preset("tpu-v3-pod")) < 16.0 * (1 << 20));
}

TEST_CASE("a pod whose simulation would exhaust memory is refused before anything is built") {
  CHECK_THROWS_WITH(
      require_simulation_fits(topology_from_spec("torus:256x256,cores=64")),
      "topology 'torus:256x256,cores=64' has 4194304 cores on 65536 chips; simulating it would need about "
      "12.6 GiB of memory (9 KiB per chip and 3 KiB per core), more than the 4 GiB tpusim allows: use at "
      "most "
      "about 1201493 cores");
}
