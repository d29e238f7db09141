// Folding repeated rounds must not change the simulated time; each run is a child process because SimGrid
// allows one engine per process.
#include <catch2/catch.hpp>
#include <sstream>

#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/child_process.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

struct FoldingOutcome {
  double time_s;
  std::uint64_t messages, simulated, folded;
};

FoldingOutcome run_child(const std::string& topology_spec, const std::string& algorithm,
                         const std::string& bytes, bool fold, const std::string& axes = "") {
  const auto child = run_in_child([&] {
    const auto topology = topo::topology_from_spec(topology_spec);
    SimOptions options;
    options.fold_repeated_rounds = fold;
    Simulator simulator(topology, options);
    const auto r = simulator.run(testing::request_along(topology, "allreduce", algorithm, bytes, axes));
    std::ostringstream out;
    out.precision(17);
    out << r.time_s << " " << r.messages << " " << r.simulated_messages << " " << r.folded_rounds;
    return out.str();
  });
  std::istringstream in(child.output);
  FoldingOutcome outcome{};
  in >> outcome.time_s >> outcome.messages >> outcome.simulated >> outcome.folded;
  return outcome;
}

void check_equal(const std::string& topology, const std::string& algorithm, const std::string& bytes,
                 const std::string& axes = "") {
  const auto folded = run_child(topology, algorithm, bytes, true, axes);
  const auto unfolded = run_child(topology, algorithm, bytes, false, axes);
  INFO(topology << " " << algorithm << " " << bytes);
  CHECK(folded.folded > 0);
  CHECK(unfolded.folded == 0);
  CHECK(folded.messages == unfolded.messages);
  CHECK(folded.simulated < unfolded.simulated);
  CHECK(folded.time_s == Approx(unfolded.time_s).epsilon(1e-12));
}

}  // namespace

TEST_CASE("folded and unfolded rings take the same simulated time on a torus") {
  check_equal("torus-4x4", "ring", "64MiB");
  check_equal("torus-4x4", "bidir_ring", "1MiB");
}

TEST_CASE("folding is exact when intra- and inter-chip hops alternate on two-core chips") {
  // Every rank waits for its inter-chip hop each step, so the rounds still repeat exactly.
  check_equal("tpu-v2-32", "bidir_ring", "64MiB");
  check_equal("tpu-v2-32", "bucket2d", "4MiB", "core+x,y");
}

TEST_CASE("rounds that do not run in lockstep are simulated one by one") {
  // On a line the ring's closing hop crosses the whole line and shares links: ranks drift apart.
  const auto folded = run_child("line:8", "ring", "1MiB", true);
  const auto unfolded = run_child("line:8", "ring", "1MiB", false);
  CHECK(folded.folded == 0);
  CHECK(folded.simulated == folded.messages);
  CHECK(folded.time_s == unfolded.time_s);
}

TEST_CASE("chunks of unequal size are not folded") {
  // 1000 elements over 3 members: chunk sizes 333, 333, 334 rotate, so no two rounds have the same pattern.
  const auto folded = run_child("torus:3", "ring", "4000", true);
  CHECK(folded.folded == 0);
}

TEST_CASE("a collective reports its rounds as they are taken up, folded or not, ending at the last") {
  // A ring allreduce over the 16 chips of torus-4x4 (one core each) has 2 x 15 rounds: 15 of reduce-scatter,
  // 15 of allgather.
  for (const bool fold : {true, false}) {
    const auto child = run_in_child([&] {
      const auto topology = topo::topology_from_spec("torus-4x4");
      SimOptions options;
      options.fold_repeated_rounds = fold;
      std::vector<std::pair<std::size_t, std::size_t>> calls;
      options.on_rounds = [&calls](std::size_t taken, std::size_t rounds) {
        calls.emplace_back(taken, rounds);
      };
      Simulator simulator(topology, options);
      simulator.run(testing::request_along(topology, "allreduce", "ring", "64MiB"));
      std::ostringstream out;
      for (const auto& [taken, rounds] : calls) out << taken << " " << rounds << "\n";
      return out.str();
    });
    std::istringstream in(child.output);
    std::size_t taken = 0, rounds = 0, previous = 0, count = 0;
    while (in >> taken >> rounds) {
      INFO("fold " << fold << " call " << count);
      CHECK(rounds == 30);
      CHECK(taken > previous);  // only when more rounds were taken up
      CHECK(taken <= rounds);
      previous = taken;
      ++count;
    }
    CHECK(count > 0);
    CHECK(previous == 30);
  }
}
