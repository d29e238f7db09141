// On uniform topologies (every transfer one hop over identical links, no link shared at the same time) the
// ideal network model must give exactly the alpha-beta times of bounds.md.
#include <catch2/catch.hpp>

#include "sim/bounds.hpp"
#include "sim/request_builder.hpp"
#include "sim/simulator.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

struct Case {
  const char* op;
  const char* algorithms;
  const char* axes;
};

// Simulated == critical path == closed form to 1e-9 relative, for sizes that divide evenly.
void check_exact(const char* topology_spec, const std::vector<Case>& cases) {
  const auto topology = topo::topology_from_spec(topology_spec);
  Simulator simulator(topology);
  for (const auto& c : cases) {
    for (const char* bytes : {"1KiB", "64KiB", "4MiB", "256MiB"}) {
      CollectiveSpec spec;
      spec.op = c.op;
      spec.algorithms = c.algorithms;
      spec.group_axes = c.axes;
      spec.bytes = bytes;
      const auto built = build_request(topology, spec);
      const auto result = simulator.run(built.request);
      const auto prediction = predict_alpha_beta(topology, built.request);
      INFO(topology_spec << " " << c.op << " " << c.algorithms << " " << bytes);
      REQUIRE(prediction.contention_free);
      REQUIRE(prediction.uniform);
      CHECK(result.time_s == Approx(prediction.time_s).epsilon(1e-9));
      CHECK(prediction.closed_form_s == Approx(prediction.time_s).epsilon(1e-9));
    }
  }
}

}  // namespace

TEST_CASE("ring and bidirectional ring equal alpha-beta on ring-8") {
  check_exact("ring-8", {{"allreduce", "ring", ""},
                         {"allreduce", "bidir_ring", ""},
                         {"reduce_scatter", "ring", ""},
                         {"reduce_scatter", "bidir_ring", ""},
                         {"allgather", "ring", ""},
                         {"allgather", "bidir_ring", ""},
                         {"permute", "direct", ""}});
}

TEST_CASE("ring, bidirectional ring and bucket2d equal alpha-beta on torus-4x4") {
  check_exact("torus-4x4", {{"allreduce", "ring", "all"},
                            {"allreduce", "bidir_ring", "all"},
                            {"allreduce", "bucket2d", "x,y"},
                            {"allreduce", "ring,bidir_ring", "x,y"}});
}

TEST_CASE("bucket2d equals its closed form on a non-square torus") {
  check_exact("torus:8x4", {{"allreduce", "bucket2d", "x,y"}, {"allreduce", "bucket2d", "y,x"}});
}

TEST_CASE("halving-doubling equals alpha-beta on a hypercube") {
  // On a 2x2x2 torus the group x,y,z in group order makes every xor partner one hop away.
  check_exact("torus:2x2x2", {{"allreduce", "halving_doubling", "x,y,z"},
                              {"allreduce", "halving_doubling,halving_doubling,halving_doubling", "x,y,z"}});
}

TEST_CASE("bucket2d closed form is the bounds.md formula") {
  const auto topology = topo::preset("torus-4x4");
  CollectiveSpec spec;
  spec.algorithms = "bucket2d";
  spec.group_axes = "x,y";
  spec.bytes = "64MiB";
  const auto built = build_request(topology, spec);
  const auto prediction = predict_alpha_beta(topology, built.request);
  const double a = topology.inter_chip().latency_s(), b = topology.inter_chip().bandwidth_Bps();
  const double s = 64.0 * 1024 * 1024;
  const double kx = 4, ky = 4;
  const double formula =
      2 * (kx - 1) * a + (kx - 1) / kx * s / b + 2 * (ky - 1) * a + (ky - 1) / ky * (s / kx) / b;
  CHECK(prediction.closed_form_s == Approx(formula).epsilon(1e-12));
  CHECK(prediction.time_s == Approx(formula).epsilon(1e-9));
}

TEST_CASE("a ring mixing intra- and inter-chip hops equals its critical path, not the uniform formula") {
  const auto topology = topo::preset("tpu-v2-32");
  Simulator simulator(topology);
  CollectiveSpec spec;
  spec.algorithms = "bidir_ring";
  spec.bytes = "64MiB";
  const auto built = build_request(topology, spec);
  const auto result = simulator.run(built.request);
  const auto prediction = predict_alpha_beta(topology, built.request);
  CHECK_FALSE(prediction.uniform);
  CHECK(prediction.closed_form_s < 0);
  REQUIRE(prediction.contention_free);
  CHECK(result.time_s == Approx(prediction.time_s).epsilon(1e-9));
  // Every step waits for its inter-chip hop: the uniform formula with inter-chip links is what it costs.
  const double a = topology.inter_chip().latency_s(), b = topology.inter_chip().bandwidth_Bps();
  const double p = 32, s = 64.0 * 1024 * 1024;
  CHECK(result.time_s == Approx(2 * (p - 1) * a + (p - 1) / p * s / b).epsilon(1e-9));
}

TEST_CASE("the lv08 model is slower than the ideal alpha-beta prediction") {
  const auto topology = topo::preset("ring-8");
  SimOptions options;
  options.network = NetworkModel::lv08;
  Simulator simulator(topology, options);
  CollectiveSpec spec;
  spec.algorithms = "ring";
  spec.bytes = "1MiB";
  const auto built = build_request(topology, spec);
  const auto result = simulator.run(built.request);
  CHECK(result.time_s > predict_alpha_beta(topology, built.request).time_s * 1.01);
}
