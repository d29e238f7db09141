// Periodic folding (sim/round_history.hpp): rings whose chunks differ in size repeat the round a period back.
// The reference is the same collective with folding off, which simulates every transfer (what every version
// before periodic folding did on these pods), and for cases that folded before, exact figures of that version.
// Each simulation is a child process because SimGrid allows one engine per process.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <sstream>

#include "sim/bounds.hpp"
#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/child_process.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

struct PeriodicCase {
  std::string topology, op, algorithm, bytes, axes;
};

struct PeriodicOutcome {
  double time_s = 0, busiest_link_bytes = 0, total_link_bytes = 0;
  std::uint64_t messages = 0, simulated = 0, folded = 0;
};

std::string describe(const PeriodicCase& c) {
  return c.topology + " " + c.op + " " + c.algorithm + " " + c.bytes + " along " + (c.axes.empty() ? "all" : c.axes);
}

PeriodicOutcome periodic_run(const PeriodicCase& c, bool fold) {
  const auto child = run_in_child([&] {
    const auto topology = topo::topology_from_spec(c.topology);
    SimOptions options;
    options.fold_repeated_rounds = fold;
    Simulator simulator(topology, options);
    const auto r = simulator.run(testing::request_along(topology, c.op, c.algorithm, c.bytes, c.axes));
    double busiest = 0, total = 0;
    for (const auto& load : simulator.link_loads()) {
      busiest = std::max(busiest, load.bytes);
      total += load.bytes;
    }
    std::ostringstream out;
    out.precision(17);
    out << r.time_s << " " << busiest << " " << total << " " << r.messages << " " << r.simulated_messages << " "
        << r.folded_rounds;
    return out.str();
  });
  std::istringstream in(child.output);
  PeriodicOutcome o;
  in >> o.time_s >> o.busiest_link_bytes >> o.total_link_bytes >> o.messages >> o.simulated >> o.folded;
  REQUIRE(in);
  return o;
}

// Folding sleeps for the sum of the kept rounds' durations where the unfolded run adds them one by one: the
// two agree to rounding (the folding of rounds that repeat the one before has always differed the same way).
constexpr double kFoldRelativeTolerance = 1e-12;

// Returns the rounds the simulation folded.
std::uint64_t check_against_unfolded(const PeriodicCase& c, bool must_fold) {
  INFO(describe(c));
  const auto folded = periodic_run(c, true);
  const auto unfolded = periodic_run(c, false);
  CHECK(unfolded.folded == 0);
  CHECK(unfolded.simulated == unfolded.messages);
  CHECK(folded.messages == unfolded.messages);
  if (must_fold) {
    CHECK(folded.folded > 0);
    CHECK(folded.simulated < unfolded.simulated);
  }
  CHECK(folded.time_s == Approx(unfolded.time_s).epsilon(kFoldRelativeTolerance));
  CHECK(folded.busiest_link_bytes == Approx(unfolded.busiest_link_bytes).epsilon(kFoldRelativeTolerance));
  CHECK(folded.total_link_bytes == Approx(unfolded.total_link_bytes).epsilon(kFoldRelativeTolerance));
  // The prediction folds the same rounds: it must equal its unfolded self too.
  const auto topology = topo::topology_from_spec(c.topology);
  const auto request = testing::request_along(topology, c.op, c.algorithm, c.bytes, c.axes);
  const auto fast = predict_alpha_beta(topology, request, true);
  const auto slow = predict_alpha_beta(topology, request, false);
  CHECK(fast.transfers == slow.transfers);
  CHECK(fast.time_s == Approx(slow.time_s).epsilon(kFoldRelativeTolerance));
  CHECK(fast.max_link_bytes == Approx(slow.max_link_bytes).epsilon(kFoldRelativeTolerance));
  if (must_fold) CHECK(fast.folded_rounds > 0);
  return folded.folded;
}

}  // namespace

TEST_CASE("rings with chunks of 0 or 1 element fold a period of rounds at a time and equal the unfolded run") {
  // 256 elements (1 KiB) over 512 members leave every other chunk empty (period 2); 48 elements (192 bytes)
  // over 64 members one chunk in four (period 64 / gcd(48, 64) = 4).
  check_against_unfolded({"torus:8x8x8", "allreduce", "bidir_ring", "1KiB", ""}, true);
  check_against_unfolded({"torus:8x8", "allreduce", "ring", "192", ""}, true);
  check_against_unfolded({"torus:8x8", "reduce_scatter", "bidir_ring", "192", ""}, true);
  check_against_unfolded({"torus:8x8", "allgather", "ring", "192", ""}, true);
  // Chunks of 1 and 2 elements (100 over 64 members): a 4-byte and an 8-byte message take different times,
  // so the rounds do not run alone and nothing folds; several lines at once, and two-core chips whose
  // intra- and inter-chip hops differ, do not run alone either. Each still takes the unfolded time.
  check_against_unfolded({"torus:8x8", "allreduce", "ring", "400", ""}, false);
  check_against_unfolded({"torus:8x8x4", "allreduce", "bidir_ring", "100", "x,y,z"}, false);
  check_against_unfolded({"torus:8x4,cores=2", "allreduce", "bidir_ring", "192", ""}, false);
}

TEST_CASE("periodic folding equals the unfolded run on random pods and ops and sizes") {
  std::mt19937 random(20261203);
  const std::vector<std::string> ops = {"allreduce", "reduce_scatter", "allgather"};
  const std::vector<std::string> algorithms = {"ring", "bidir_ring"};
  int trials_folding = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int dims = 1 + static_cast<int>(random() % 3);
    std::string topology = "torus:";
    int members = 1;
    for (int d = 0; d < dims; ++d) {
      const int size = 2 + static_cast<int>(random() % 7);
      members *= size;
      topology += (d > 0 ? "x" : "") + std::to_string(size);
    }
    if (random() % 3 == 0) {
      topology += ",cores=2";
      members *= 2;
    }
    // Fewer elements than members (chunks of 0 or 1 element, folding when members / gcd(elements, members)
    // is short enough), or up to twice as many (chunks of unequal sizes that do not run alone).
    const int elements = 1 + static_cast<int>(random() % static_cast<unsigned>(trial % 3 == 0 ? 2 * members : members));
    const std::string& op = ops[random() % ops.size()];
    const std::string& algorithm = algorithms[random() % algorithms.size()];
    if (check_against_unfolded({topology, op, algorithm, std::to_string(4 * elements), ""}, false) > 0)
      ++trials_folding;
  }
  CHECK(trials_folding > 0);  // the comparison covered folded runs, not only unfolded ones
}

TEST_CASE("collectives that folded before keep their exact simulated times") {
  // Recorded with tpusim collective --json from the build of commit 2da9b13 (before periodic folding), whose
  // round folding these cases already used: they must not move by a bit.
  struct Recorded {
    PeriodicCase c;
    double time_s;
  };
  const std::vector<Recorded> recorded = {
      {{"torus:8x8x8", "allreduce", "bidir_ring", "4KiB", ""}, 0.0010220659354838709},
      {{"torus:16x8x8", "allreduce", "bidir_ring", "4KiB", ""}, 0.002046132},
      {{"torus-4x4", "allreduce", "ring", "64MiB", ""}, 0.0020595019354838705},
  };
  for (const auto& r : recorded) {
    INFO(describe(r.c));
    CHECK(periodic_run(r.c, true).time_s == r.time_s);
  }
}

TEST_CASE("a 4 KiB allreduce over 2048 chips folds and keeps the time simulated without folding") {
  // Recorded from the build of commit 2da9b13, which simulated all 4,192,256 transfers (15 s): 1024 elements
  // over 2048 members leave every ring chunk 0 or 1 element, so no round repeated the one before.
  const PeriodicCase c{"torus:16x16x8", "allreduce", "bidir_ring", "4KiB", ""};
  const auto folded = periodic_run(c, true);
  CHECK(folded.messages == 4192256);
  CHECK(folded.simulated == 2048);
  CHECK(folded.time_s == Approx(0.004094264129032389).epsilon(kFoldRelativeTolerance));
}

TEST_CASE("periodically folded rounds still move real data to the reference reduction") {
  // The folded rounds' data is applied round by round: the result must be the reference reduction, and the
  // run must have folded for this to test anything.
  const std::vector<PeriodicCase> cases = {
      {"torus:8x8x8", "allreduce", "bidir_ring", "1KiB", ""},
      {"torus:8x8", "reduce_scatter", "ring", "192", ""},
      {"torus:8x8", "allgather", "bidir_ring", "192", ""},
  };
  for (const auto& c : cases) {
    auto in = testing::in_child([&](std::ostream& out) {
      const auto topology = topo::topology_from_spec(c.topology);
      Simulator simulator(topology);
      const auto run =
          testing::run_with_data(simulator, testing::request_along(topology, c.op, c.algorithm, c.bytes, c.axes));
      out << run.result.folded_rounds << "\n";
      testing::write_data_line(out, c.op + "/" + c.algorithm, run);
    });
    INFO(describe(c));
    std::uint64_t folded = 0;
    in >> folded;
    CHECK(folded > 0);
    CHECK(testing::check_data_lines(in) == 1);
  }
}
