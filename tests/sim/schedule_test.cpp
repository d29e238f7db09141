// Chunking of buffers into balanced parts, for every size a user can ask for.
#include "sim/schedule.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <random>

#include "sim/algorithm_registry.hpp"
#include "sim/bounds.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;

TEST_CASE("balanced parts tile the range exactly, even for counts near the 64-bit limit") {
  const std::uint64_t huge = std::numeric_limits<std::uint64_t>::max() / 4;  // the largest fp32 count
  for (const std::uint64_t count : {std::uint64_t{10}, std::uint64_t{1} << 61, huge}) {
    for (const std::uint64_t parts : {1, 3, 8, 4096}) {
      const ElementRange whole{5, count};
      std::uint64_t next = whole.offset;
      for (std::uint64_t i = 0; i < parts; ++i) {
        const auto part = balanced_part(whole, parts, i);
        INFO("count " << count << " parts " << parts << " part " << i);
        REQUIRE(part.offset == next);
        REQUIRE(part.count >= count / parts);
        REQUIRE(part.count <= count / parts + 1);
        next = part.end();
      }
      CHECK(next == whole.end());
    }
  }
}

TEST_CASE("a ring allreduce of 8 EiB per member still equals its closed form") {
  const auto topology = topo::preset("ring-8");
  // 2^63 bytes, past the 1 EiB tpusim reads from text: 2^61 elements, times 8 parts overflows 64 bits.
  auto request = testing::request_along(topology, "allreduce", "ring", "4");
  request.elements = std::uint64_t{1} << 61;
  const auto prediction = predict_alpha_beta(topology, request);
  REQUIRE(prediction.uniform);
  CHECK(prediction.closed_form_s == Approx(prediction.time_s).epsilon(1e-9));
}

TEST_CASE(
    "a round the schedule says repeats has the pattern of the round before, and folding with it is exact") {
  // The hint lets the executor and the prediction fold without generating rounds; it must never be wrong.
  // Ground truth: the rounds themselves, generated and compared; then predictions folded (with the hint) and
  // unfolded agree.
  std::mt19937 random(17);
  struct Case {
    const char* topology;
    const char* op;
    const char* algorithm;
    const char* axes;
  };
  const std::vector<Case> cases = {
      {"torus:6x4,cores=2", "allreduce", "ring", "all"},
      {"torus:6x4,cores=2", "allreduce", "bidir_ring", "core+x"},
      {"torus:6x4,cores=2", "allreduce", "bucket2d", "core+x,y"},
      {"torus:4x4x2", "allreduce", "multiport", "core,x,y,z"},
      {"torus:6x4,cores=2", "reduce_scatter", "bidir_ring", "all"},
      {"torus:6x4,cores=2", "allgather", "ring", "x"},
      {"torus:6x4,cores=2", "allreduce", "ring,bidir_ring", "core+x,y"},
      {"torus:6x4,cores=2", "allreduce", "halving_doubling", "all"},
  };
  int hinted = 0;
  for (const auto& c : cases) {
    for (int trial = 0; trial < 4; ++trial) {
      const auto topology = topo::topology_from_spec(c.topology);
      // Element counts that split evenly and counts that do not.
      const std::uint64_t elements = trial % 2 == 0 ? 48 * (1 + random() % 64) : 1 + random() % 5000;
      auto request =
          testing::request_along(topology, c.op, c.algorithm, std::to_string(4 * elements), c.axes);
      INFO(c.topology << " " << c.op << " " << c.algorithm << " " << elements << " elements");
      const Schedule schedule = build_schedule(topology, request);
      std::vector<Transfer> previous, round;
      for (std::size_t k = 0; k < schedule.round_count(); ++k) {
        round.clear();
        schedule.append_round(k, round);
        if (k > 0 && schedule.repeats_previous(k)) {
          REQUIRE(same_pattern(round, previous));
          ++hinted;
        }
        previous.swap(round);
      }
      const auto folded = predict_alpha_beta(topology, request, true);
      const auto unfolded = predict_alpha_beta(topology, request, false);
      CHECK(folded.time_s == Approx(unfolded.time_s).epsilon(1e-12));
      CHECK(folded.max_link_bytes == Approx(unfolded.max_link_bytes).epsilon(1e-12));
      CHECK(folded.transfers == unfolded.transfers);
    }
  }
  CHECK(hinted > 100);
}
