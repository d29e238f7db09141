#include "topologies/presets.hpp"

#include <catch2/catch.hpp>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

using namespace tpusim::topo;

TEST_CASE("the TPU pods have the published sizes and link rates") {
  const Topology v2 = preset("tpu-v2-pod");
  CHECK(v2.num_cores() == 512);
  CHECK(v2.chip_dims() == std::vector<int>{16, 16});
  CHECK(v2.inter_chip().bandwidth_Bps() == Approx(62e9));
  const Topology v3 = preset("tpu-v3-pod");
  CHECK(v3.num_cores() == 2048);
  CHECK(v3.inter_chip().bandwidth_Bps() == Approx(82e9));
}

TEST_CASE("specs build tori, meshes and rings with overrides") {
  const Topology t = topology_from_spec("torus:4x8,cores=2,bw=100GBps,lat=2us");
  CHECK(t.kind() == "torus");
  CHECK(t.num_cores() == 64);
  CHECK(t.inter_chip().bandwidth_Bps() == Approx(100e9));
  CHECK(t.inter_chip().latency_s() == Approx(2e-6));
  CHECK(topology_from_spec("mesh:3x3").kind() == "mesh");
  CHECK(topology_from_spec("ring:5").kind() == "ring");
  CHECK(topology_from_spec("tpu-v2-pod,bw=1e9").inter_chip().bandwidth_Bps() == 1e9);
}

TEST_CASE("rejects unknown presets and bad overrides with one clear message") {
  // The valid names as the table lists them, so that a new preset needs no edit here.
  CHECK_THROWS_WITH(preset("tpu-v2-pdo"),
                    "unknown topology preset 'tpu-v2-pdo' (did you mean 'tpu-v2-pod'?); valid presets are " +
                        tpusim::join(preset_names()) + " (or a spec such as torus:8x8,cores=2)");
  CHECK_THROWS_WITH(topology_from_spec("torus:4x0"),
                    "topology 'torus:4x0': '4x0' is not a list of sizes such as 16x16 or 4x4x4");
  CHECK_THROWS_WITH(topology_from_spec("torus:4x4,bw=0GBps"),
                    "topology 'torus:4x4,bw=0GBps': bw: '0GBps' is not a bandwidth: it must be positive");
  CHECK_THROWS_WITH(topology_from_spec("torus:4x4,bandwidth=1"),
                    "topology 'torus:4x4,bandwidth=1': unknown key 'bandwidth'; keys are cores, bw, lat, "
                    "intra_bw, intra_lat, twist_x, twist_y, twist_z");
  CHECK_THROWS_AS(topology_from_spec("torus:4x4,cores=0"), tpusim::InputError);
  CHECK_THROWS_AS(topology_from_spec("hypercube:4"), tpusim::InputError);
}

TEST_CASE("rejects a key given twice in a spec") {
  CHECK_THROWS_WITH(topology_from_spec("torus:4x4,cores=2,bw=1GBps,cores=4"),
                    "topology 'torus:4x4,cores=2,bw=1GBps,cores=4': key 'cores' is given twice");
}

TEST_CASE("rejects a trailing comma in a spec") {
  CHECK_THROWS_WITH(topology_from_spec("torus:4x4,"),
                    "topology 'torus:4x4,': trailing ','; expected key=value after it");
}

TEST_CASE("implausible link figures in a spec are refused at their key") {
  CHECK_THROWS_WITH(
      topology_from_spec("ring:8,lat=1e300"),
      "topology 'ring:8,lat=1e300': lat: '1e300' is not a plausible latency: expected 0, or 1 ps to 1 s");
  CHECK_THROWS_WITH(topology_from_spec("ring:8,intra_bw=1e-300"),
                    "topology 'ring:8,intra_bw=1e-300': intra_bw: '1e-300' is not a plausible bandwidth: "
                    "expected 1 kB/s to 1 PB/s");
}

TEST_CASE("sizes in a spec are never cut to fewer bits") {
  CHECK_THROWS_WITH(topology_from_spec("ring:4294967304"),
                    "topology 'ring:4294967304': '4294967304' is not a list of sizes such as 16x16 or 4x4x4");
  CHECK_THROWS_WITH(
      topology_from_spec("ring:8,cores=4294967298"),
      "topology 'ring:8,cores=4294967298': cores: 4294967298 is out of range: expected 1 to 64");
  CHECK_THROWS_WITH(topology_from_spec("ring:8,cores=0"),
                    "topology 'ring:8,cores=0': cores: 0 is out of range: expected 1 to 64");
}
