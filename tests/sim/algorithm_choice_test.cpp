// "auto": the choice is the fastest simulated of everything auto stands for, found without simulating the
// candidates whose alpha-beta critical path already loses; per-dimension auto fills only its own places.
#include "sim/algorithm_choice.hpp"

#include <catch2/catch.hpp>
#include <sstream>

#include "sim/algorithm_registry.hpp"
#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

struct Outcome {
  std::string chosen;
  double chosen_s = 0;  // simulated time of auto's choice
  double best_s = 0;    // the fastest simulated of every candidate that fits, each simulated here
  std::size_t simulated = 0, exact = 0, fitting = 0;
};

// In a child (one Simulator per process).
Outcome choose_and_simulate_all(const std::string& spec, const std::string& axes, const std::string& bytes,
                                NetworkModel network = NetworkModel::ideal) {
  auto in = testing::in_child([&](std::ostream& out) {
    const auto topology = topo::topology_from_spec(spec);
    SimOptions options;
    options.network = network;
    Simulator simulator(topology, options);
    const auto request = testing::request_along(topology, "allreduce", kAutoAlgorithm, bytes, axes);
    std::vector<CollectiveRequest> candidates;
    for (const auto& names : auto_candidates(request)) {
      candidates.push_back(request);
      candidates.back().algorithms = names;
    }
    const auto choice = fastest(simulator, candidates);
    double best = -1;
    std::size_t fitting = 0;
    for (const auto& candidate : candidates) {
      try {
        check_algorithms(topology, candidate);
      } catch (const InputError&) {
        continue;
      }
      ++fitting;
      const double t = simulator.run(candidate).time_s;
      if (best < 0 || t < best) best = t;
    }
    out << algorithm_list(candidates[choice.index].algorithms) << " "
        << simulator.run(candidates[choice.index]).time_s << " " << best << " " << choice.simulated << " "
        << choice.exact << " " << fitting;
  });
  Outcome outcome;
  in >> outcome.chosen >> outcome.chosen_s >> outcome.best_s >> outcome.simulated >> outcome.exact >>
      outcome.fitting;
  INFO(in.str());
  REQUIRE(outcome.best_s > 0);
  return outcome;
}

}  // namespace

TEST_CASE("auto picks the fastest simulated allreduce on the TPU v2 pod, size by size") {
  std::size_t pruned = 0;
  for (const char* bytes : {"4", "64KiB", "64MiB"}) {
    INFO(bytes);
    const auto outcome = choose_and_simulate_all("tpu-v2-pod", "core,x,y", bytes);
    // Clock differences round, and a contention-free candidate timed by its critical path equals its
    // simulation to 1e-9 (sim/bounds.hpp).
    CHECK(outcome.chosen_s == Approx(outcome.best_s).epsilon(1e-9));
    pruned += outcome.fitting - outcome.simulated - outcome.exact;
    if (std::string(bytes) == "4") CHECK(outcome.chosen == "recursive_doubling");
    if (std::string(bytes) == "64MiB") CHECK(outcome.chosen == "multiport");
  }
  // Candidates whose critical path loses to a simulated time are not simulated.
  CHECK(pruned > 0);
}

// On the ideal network a contention-free schedule takes exactly its alpha-beta critical path (bounds.hpp), so
// auto times such candidates without simulating them; the choice is still the fastest simulated.
TEST_CASE("auto times contention-free candidates by their critical path, on the ideal network only") {
  std::size_t exact = 0;
  for (const char* bytes : {"4KiB", "1MiB", "64MiB"}) {
    INFO(bytes);
    const auto ideal = choose_and_simulate_all("torus-4x4", "x,y", bytes);
    CHECK(ideal.chosen_s == Approx(ideal.best_s).epsilon(1e-9));
    exact += ideal.exact;
    const auto lv08 = choose_and_simulate_all("torus-4x4", "x,y", bytes, NetworkModel::lv08);
    CHECK(lv08.chosen_s == Approx(lv08.best_s).epsilon(1e-12));
    CHECK(lv08.exact == 0);
    CHECK(lv08.simulated > 0);
  }
  CHECK(exact > 0);
}

TEST_CASE("auto in place of one dimension's algorithm fills only that place") {
  const auto topology = topo::preset("torus-4x4");
  auto request = testing::request_along(topology, "allreduce", "auto,ring", "1MiB", "x,y");
  const auto lists = auto_candidates(request);
  REQUIRE(!lists.empty());
  for (const auto& algorithms : lists) {
    REQUIRE(algorithms.size() == 2);
    CHECK(std::string(algorithms[1].name()) == "ring");
    CHECK(algorithms[0].row().line != nullptr);
  }
  // Everything auto alone stands for, from the table: each row auto may choose over the whole group, and
  // each of those with line operations along both dimensions, in the table's order.
  request.algorithms = {AlgorithmRef::automatic()};
  std::vector<std::vector<AlgorithmRef>> expected;
  for (const auto& row : algorithm_table()) {
    if (row.kind != CollectiveKind::allreduce || !row.auto_may_choose()) continue;
    expected.push_back({AlgorithmRef(row)});
    if (row.line != nullptr) expected.push_back({AlgorithmRef(row), AlgorithmRef(row)});
  }
  CHECK(expected.size() > algorithm_names(CollectiveKind::allreduce).size());
  CHECK(auto_candidates(request) == expected);
}

TEST_CASE("auto with nothing that fits is one line naming the collective") {
  const auto child = run_in_child([] {
    const auto topology = topo::preset("torus-4x4");
    Simulator simulator(topology);
    // 3 elements cannot be split over 16 members by any all-to-all.
    const auto request = testing::request_along(topology, "alltoall", kAutoAlgorithm, "12", "x,y");
    try {
      fastest_algorithms(simulator, request);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  });
  CHECK(child.output == "auto: no alltoall algorithm fits these groups");
}
