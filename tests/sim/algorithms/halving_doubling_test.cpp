// Recursive halving reduce-scatter and recursive doubling allgather (sim/algorithms/halving_doubling.cpp).
// Real data through the simulator is checked against the definitions of collective.hpp, computed here with
// plain double loops over the members' inputs (not sim/reference.cpp), on groups of 1 to 16 members, random
// element counts (below the group size, not divisible by it, divisible), one or two group dimensions.
// halving_doubling_schedule_test.cpp checks any assignment of ranges on a plain interpreter.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "sim/request_check.hpp"
#include "sim/simulator.hpp"
#include "tests/sim/sim_test_support.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

using Buffers = std::map<topo::Rank, std::vector<float>>;

const std::vector<int> kSizes = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16};

// Element counts for a group of p: below p, not divisible by p, divisible by p; drawn at random.
std::vector<std::uint64_t> element_counts(int p, std::mt19937& random) {
  auto draw = [&random](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(random);
  };
  std::vector<std::uint64_t> counts = {1, draw(1, 3 * p), p * draw(1, 40)};
  if (p > 1) {
    counts.push_back(draw(1, p - 1));
    const std::uint64_t uneven = draw(p + 1, 60 * p);
    counts.push_back(uneven % p == 0 ? uneven + 1 : uneven);
  }
  return counts;
}

// The worst difference from the definitions: allgather, every member holds position i's input on chunk i;
// reduce-scatter, position i holds on chunk i the sum (or max) of every member's input.
double worst_error(const CollectiveRequest& request, const Buffers& inputs, const Buffers& actual) {
  const std::uint64_t n = request.elements;
  double worst = 0;
  for (const auto& group : request.groups) {
    const std::uint64_t p = group.ranks.size();
    for (std::uint64_t i = 0; i < p; ++i) {
      for (std::uint64_t e = n * i / p; e < n * (i + 1) / p; ++e) {
        if (request.kind == CollectiveKind::allgather) {
          for (const topo::Rank member : group.ranks) {
            worst = std::max(
                worst, std::fabs(static_cast<double>(actual.at(member)[e]) - inputs.at(group.ranks[i])[e]));
          }
          continue;
        }
        double want = request.op == ReduceOp::sum ? 0.0 : -INFINITY;
        for (const topo::Rank member : group.ranks) {
          const double x = inputs.at(member)[e];
          want = request.op == ReduceOp::sum ? want + x : std::max(want, x);
        }
        worst = std::max(worst, std::fabs(actual.at(group.ranks[i])[e] - want));
      }
    }
  }
  return worst;
}

double run_and_compare(Simulator& simulator, CollectiveRequest request, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Buffers inputs;
  for (const auto& group : request.groups) {
    for (const topo::Rank rank : group.ranks) {
      auto& buffer = inputs[rank];
      buffer.resize(request.elements);
      for (auto& x : buffer) x = uniform(random);
    }
  }
  Buffers data = inputs;
  request.data = &data;
  simulator.run(request);
  return worst_error(request, inputs, data);
}

// Sums of p fp32 values in another order than the reference's; copies and max are exact.
double tolerance(const CollectiveRequest& request, int p) {
  return request.kind == CollectiveKind::reduce_scatter && request.op == ReduceOp::sum ? 1e-6 * p * p : 0.0;
}

// 32 cores: 4x4 chips, 2 cores each. Two groups run at once: even ranks in order, odd ranks shuffled.
void check_flat(CollectiveKind kind, ReduceOp op) {
  const auto topology = topo::topology_from_spec("torus:4x4,cores=2");
  Simulator simulator(topology);
  std::mt19937 random(static_cast<unsigned>(kind) * 100 + static_cast<unsigned>(op));
  for (const int p : kSizes) {
    for (const std::uint64_t elements : element_counts(p, random)) {
      CollectiveRequest request;
      request.kind = kind;
      request.op = op;
      request.algorithms = resolve_algorithms(request.kind, {"halving_doubling"});
      request.elements = elements;
      auto shuffled = testing::make_group({p}, 1, 2);
      std::shuffle(shuffled.ranks.begin(), shuffled.ranks.end(), random);
      request.groups = {testing::make_group({p}, 0, 2), shuffled};
      INFO(to_string(kind) << " p=" << p << " elements=" << elements);
      CHECK(run_and_compare(simulator, request, random()) <= tolerance(request, p));
    }
  }
}

}  // namespace

TEST_CASE("recursive doubling allgather gives every member every chunk on 1 to 16 members") {
  check_flat(CollectiveKind::allgather, ReduceOp::sum);
}

TEST_CASE("recursive halving reduce-scatter leaves every member its summed chunk on 1 to 16 members") {
  check_flat(CollectiveKind::reduce_scatter, ReduceOp::sum);
}

TEST_CASE("recursive halving reduce-scatter computes an exact max on 1 to 16 members") {
  check_flat(CollectiveKind::reduce_scatter, ReduceOp::max);
}

TEST_CASE("halving-doubling composes per dimension on torus-4x4 --group-axes x,y") {
  const auto topology = topo::preset("torus-4x4");
  Simulator simulator(topology);
  unsigned seed = 1;
  for (const char* op : {"allgather", "reduce_scatter"}) {
    for (const char* names :
         {"halving_doubling,halving_doubling", "halving_doubling,ring", "bidir_ring,halving_doubling"}) {
      for (const char* bytes : {"4", "28", "4004", "64KiB"}) {
        const auto request = testing::request_along(topology, op, names, bytes, "x,y");
        REQUIRE(request.groups.size() == 1);
        REQUIRE(request.groups.front().dims == std::vector<int>{4, 4});
        INFO(op << " " << names << " " << bytes);
        CHECK(run_and_compare(simulator, request, ++seed) <= tolerance(request, 16));
      }
    }
  }
}

TEST_CASE("halving-doubling composes per dimension on dimensions of other sizes than powers of two") {
  const auto topology = topo::topology_from_spec("torus:4x4,cores=2");
  Simulator simulator(topology);
  const std::vector<std::vector<int>> shapes = {{3, 5}, {5, 3}, {6, 2}, {2, 6},
                                                {3, 4}, {7, 2}, {1, 6}, {6, 1}};
  const std::vector<std::vector<std::string>> choices = {
      {"halving_doubling", "halving_doubling"}, {"halving_doubling", "ring"}, {"ring", "halving_doubling"}};
  unsigned seed = 1;
  for (const auto kind : {CollectiveKind::allgather, CollectiveKind::reduce_scatter}) {
    for (const auto& shape : shapes) {
      for (const auto& names : choices) {
        for (const std::uint64_t elements : {5, 97, 1000}) {
          CollectiveRequest request;
          request.kind = kind;
          request.algorithms = resolve_algorithms(request.kind, names);
          request.elements = elements;
          request.groups = {testing::make_group(shape, 1, 2)};
          const int p = request.groups.front().size();
          INFO(to_string(kind) << " " << shape[0] << "x" << shape[1] << " " << names[0] << "," << names[1]
                               << " elements=" << elements);
          CHECK(run_and_compare(simulator, request, ++seed) <= tolerance(request, p));
        }
      }
    }
  }
}

TEST_CASE("a composed allreduce still needs power-of-two halving-doubling dimensions but the last") {
  const auto topology = topo::topology_from_spec("torus:6x4");
  const auto request_for = [&topology](const char* op) {
    return testing::request_along(topology, op, "halving_doubling,ring", "64MiB", "x,y");
  };
  CHECK_THROWS_WITH(
      validate_request(topology, request_for("allreduce")),
      Catch::Contains("halving_doubling along group dimension 0 (size 6) needs a power-of-two"));
  for (const char* op : {"reduce_scatter", "allgather"})
    CHECK_NOTHROW(validate_request(topology, request_for(op)));
}
