// On uniform topologies (every transfer one hop over identical links, no link shared at the same time) the
// ideal network model must give exactly the alpha-beta times of sim/README.md (Closed forms).
#include <catch2/catch.hpp>

#include "sim/algorithm_registry.hpp"
#include "sim/bounds.hpp"
#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
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
      const auto request = testing::request_along(topology, c.op, c.algorithms, bytes, c.axes);
      const auto result = simulator.run(request);
      const auto prediction = predict_alpha_beta(topology, request);
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
  const char* per_dimension = "halving_doubling,halving_doubling,halving_doubling";
  check_exact("torus:2x2x2", {{"allreduce", "halving_doubling", "x,y,z"},
                              {"allreduce", per_dimension, "x,y,z"},
                              {"reduce_scatter", "halving_doubling", "x,y,z"},
                              {"reduce_scatter", per_dimension, "x,y,z"},
                              {"allgather", "halving_doubling", "x,y,z"},
                              {"allgather", per_dimension, "x,y,z"}});
}

TEST_CASE("halving-doubling reduce-scatter and allgather equal alpha-beta on a square") {
  check_exact("torus:2x2", {{"reduce_scatter", "halving_doubling", "x,y"},
                            {"allgather", "halving_doubling", "x,y"},
                            {"allgather", "halving_doubling,ring", "x,y"}});
}

TEST_CASE("recursive halving and doubling take log2(p) a + (p-1)/p S/B on a hypercube") {
  const auto topology = topo::topology_from_spec("torus:2x2x2");
  Simulator simulator(topology);
  const double a = topology.inter_chip().latency_s(), b = topology.inter_chip().bandwidth_Bps();
  for (const char* op : {"reduce_scatter", "allgather"}) {
    const auto request = testing::request_along(topology, op, "halving_doubling", "64MiB", "x,y,z");
    const double s = 64.0 * 1024 * 1024, p = 8;
    INFO(op);
    CHECK(simulator.run(request).time_s == Approx(3 * a + (p - 1) / p * s / b).epsilon(1e-12));
    CHECK(predict_alpha_beta(topology, request).closed_form == "log2(p) a + (p-1)/p S/B");
  }
}

TEST_CASE("folded recursive halving and doubling take their closed form on a hypercube") {
  // Hand-made groups on the 2x2x2 torus (chip = x + 2y + 4z) whose every transfer is one hop: the core
  // members 0, 1, 2, 3 form a square in z = 0 and every extra position 2i+1 sits above its partner 2i.
  // Rounds and chunks of S/p on member 0's critical path, by hand: fold (reduce-scatter: p chunks,
  // allgather: 1), steps xor 1 .. xor p'/2 of 2^i + min(e, 2^i) chunks, unfold (1 chunk, or p).
  struct Case {
    std::vector<topo::Rank> ranks;
    int rounds;
    int chunks;
  };
  const std::vector<Case> cases = {
      {{0, 1}, 1, 1},
      {{0, 4, 1}, 3, 3 + 2 + 1},                           // p' = 2, e = 1
      {{0, 1, 2, 3}, 2, 1 + 2},                            // a square
      {{0, 4, 1, 2, 3}, 4, 5 + (1 + 1) + (2 + 1) + 1},     // p' = 4, e = 1
      {{0, 4, 1, 5, 2, 3}, 4, 6 + (1 + 1) + (2 + 2) + 1},  // e = 2
      {{0, 4, 1, 5, 2, 6, 3}, 4, 7 + (1 + 1) + (2 + 2) + 1},
      {{0, 1, 2, 3, 4, 5, 6, 7}, 3, 1 + 2 + 4},
  };
  const auto topology = topo::topology_from_spec("torus:2x2x2");
  Simulator simulator(topology);
  const double a = topology.inter_chip().latency_s(), b = topology.inter_chip().bandwidth_Bps();
  for (const auto kind : {CollectiveKind::reduce_scatter, CollectiveKind::allgather}) {
    for (const auto& c : cases) {
      const int p = static_cast<int>(c.ranks.size());
      for (const std::uint64_t per_member : {std::uint64_t{256}, std::uint64_t{1} << 20}) {
        CollectiveRequest request;
        request.kind = kind;
        request.algorithms = resolve_algorithms(request.kind, {"halving_doubling"});
        request.groups = {topo::Group{{p}, c.ranks}};
        request.elements = per_member * p;
        const double chunk_bytes = 4.0 * per_member;
        const double expected = c.rounds * a + c.chunks * chunk_bytes / b;
        const auto result = simulator.run(request);
        const auto prediction = predict_alpha_beta(topology, request);
        INFO(to_string(kind) << " p=" << p << " elements=" << request.elements);
        REQUIRE(prediction.uniform);
        CHECK(prediction.contention_free);
        CHECK(result.time_s == Approx(expected).epsilon(1e-12));
        CHECK(prediction.time_s == Approx(expected).epsilon(1e-12));
        CHECK(prediction.closed_form_s == Approx(expected).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("bucket2d closed form is the formula of sim/README.md") {
  const auto topology = topo::preset("torus-4x4");
  const auto request = testing::request_along(topology, "allreduce", "bucket2d", "64MiB", "x,y");
  const auto prediction = predict_alpha_beta(topology, request);
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
  const auto request = testing::request_along(topology, "allreduce", "bidir_ring", "64MiB");
  const auto result = simulator.run(request);
  const auto prediction = predict_alpha_beta(topology, request);
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
  const auto request = testing::request_along(topology, "allreduce", "ring", "1MiB");
  const auto result = simulator.run(request);
  CHECK(result.time_s > predict_alpha_beta(topology, request).time_s * 1.01);
}

TEST_CASE("the folded prediction is the unfolded one, on every registry row") {
  // Lockstep rounds repeated are added as shifted copies; everything the prediction reports must equal the
  // round-by-round computation, on one-core and two-core chips, tori and a mesh, with and without contention.
  for (const char* spec : {"ring-8", "torus:4x4", "torus:2x4,cores=2", "mesh-4x4"}) {
    const auto topology = topo::topology_from_spec(spec);
    for (const auto& row : algorithm_table()) {
      const bool multi_dimensional =
          row.shape == GroupShape::two_dimensional || row.shape == GroupShape::per_axis;
      if (multi_dimensional && topology.chip_dims().size() == 1) continue;
      std::string axes = row.shape == GroupShape::two_dimensional ? "x,y" : "all";
      if (row.shape == GroupShape::per_axis) axes = topo::per_axis_group_axes(topology);
      for (const char* bytes : {"4KiB", "1MiB"}) {
        INFO(spec << " " << to_string(row.kind) << " " << row.name << " " << bytes);
        const auto request = testing::request_along(topology, to_string(row.kind), row.name, bytes, axes);
        AlphaBetaPrediction folded, unfolded;
        try {
          folded = predict_alpha_beta(topology, request);
        } catch (const std::exception&) {
          continue;  // a row that does not fit this group (all-to-all divisibility, say)
        }
        unfolded = predict_alpha_beta(topology, request, /*fold=*/false);
        CHECK(unfolded.folded_rounds == 0);
        CHECK(folded.time_s == Approx(unfolded.time_s).epsilon(1e-12));
        CHECK(folded.transfers == unfolded.transfers);
        CHECK(folded.contention_free == unfolded.contention_free);
        CHECK(folded.uniform == unfolded.uniform);
        CHECK(folded.max_link_bytes == Approx(unfolded.max_link_bytes).epsilon(1e-12));
      }
    }
  }
  // A ring's rounds are lockstep: all but the first of each half fold.
  const auto ring = topo::preset("ring-8");
  const auto prediction = predict_alpha_beta(ring, testing::request_along(ring, "allreduce", "ring", "8MiB"));
  CHECK(prediction.folded_rounds > 0);
}
