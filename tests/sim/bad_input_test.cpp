// Bad input is one InputError with a message naming what is wrong and what is valid; never an abort.
#include <catch2/catch.hpp>

#include "sim/algorithm_registry.hpp"
#include "sim/request_check.hpp"
#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "tests/topologies/support/input_error_of.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

// The error of a request for `op` along `axes` (testing::request_along) checked against the topology.
// The algorithms of the kind, from the registry, as messages list them.
std::string valid_algorithms(CollectiveKind kind) { return join(algorithm_names(kind)); }

// Those of the kind that can run along one group dimension (line operations).
std::string per_dimension_algorithms(CollectiveKind kind) {
  std::vector<std::string> names;
  for (const auto& row : algorithm_table())
    if (row.kind == kind && row.line != nullptr) names.push_back(row.name);
  return join(names);
}

std::string build_error(const char* topology_spec, const char* op, const char* algorithms,
                        const char* bytes = "64MiB", const char* axes = "") {
  const auto topology = topo::topology_from_spec(topology_spec);
  return tpusim::test_support::input_error_of(
      [&] { validate_request(topology, testing::request_along(topology, op, algorithms, bytes, axes)); });
}

}  // namespace

TEST_CASE("unknown names list the valid ones") {
  CHECK(build_error("ring-8", "allreduce", "rign") ==
        "unknown allreduce algorithm 'rign' (did you mean 'ring'?); valid allreduce algorithms are " +
            valid_algorithms(CollectiveKind::allreduce));
  CHECK(build_error("ring-8", "allreduc", "ring") ==
        "unknown collective 'allreduc' (did you mean 'allreduce'?); valid collectives are allreduce, "
        "reduce_scatter, "
        "allgather, alltoall, broadcast, permute");
  CHECK(build_error("ring-8", "alltoall", "ring") ==
        "unknown alltoall algorithm 'ring'; valid alltoall algorithms are " +
            valid_algorithms(CollectiveKind::alltoall));
}

TEST_CASE("an algorithm that does not fit the group says why") {
  CHECK(build_error("ring-8", "allreduce", "bucket2d") ==
        "bucket2d needs a group with two dimensions, e.g. --group-axes core+x,y; this group has 1");
  CHECK(build_error("torus-4x4", "allreduce", "ring,ring,ring", "64MiB", "x,y") ==
        "a group with 2 dimensions takes one algorithm or one per dimension, got 3 (ring,ring,ring)");
  CHECK(build_error("torus:6x4", "allreduce", "halving_doubling,ring", "64MiB", "x,y") ==
        "halving_doubling along group dimension 0 (size 6) needs a power-of-two size unless it is the last "
        "dimension "
        "of an allreduce");
  CHECK(build_error("torus-4x4", "allreduce", "bucket2d,ring", "64MiB", "x,y") ==
        "bucket2d cannot run along one group dimension; per-dimension allreduce algorithms are " +
            per_dimension_algorithms(CollectiveKind::allreduce));
  CHECK(build_error("torus-4x4", "alltoall", "pairwise,pairwise", "64MiB", "x,y") ==
        "alltoall takes one algorithm for the whole group, got 2");
  CHECK(build_error("torus:3", "alltoall", "pairwise", "40") ==
        "alltoall needs an element count divisible by the group size: 10 elements over 3 members");
}

TEST_CASE("bytes per member must fit in 64 bits") {
  const auto topology = topo::preset("ring-8");
  CollectiveRequest request;
  request.groups = {testing::make_group({8})};
  request.elements = std::uint64_t{1} << 62;
  request.element_bytes = 4;  // 2^64 bytes per member: does not fit
  CHECK(tpusim::test_support::input_error_of([&] { validate_request(topology, request); }) ==
        "4611686018427387904 elements of 4 bytes do not fit in 64 bits of bytes per member");
}

TEST_CASE("groups must be disjoint sets of existing cores") {
  const auto topology = topo::preset("ring-8");
  CollectiveRequest request;
  request.elements = 8;
  request.groups = {testing::make_group({3}, 6)};
  CHECK(tpusim::test_support::input_error_of([&] { validate_request(topology, request); }) ==
        "group names core 8 but topology 'ring-8' has cores 0..7");
  request.groups = {testing::make_group({3}, 0), testing::make_group({2}, 2)};
  CHECK(tpusim::test_support::input_error_of([&] { validate_request(topology, request); }) ==
        "core 2 is in two groups; groups must be disjoint");
  request.groups = {};
  CHECK(tpusim::test_support::input_error_of([&] { validate_request(topology, request); }) ==
        "allreduce needs at least one group of cores");
  CHECK(build_error("ring-8", "allreduce", "ring", "64MiB", "x,q").find("unknown axis 'q'") == 0);
}

TEST_CASE("data buffers and permutations are checked") {
  const auto topology = topo::preset("ring-8");
  CollectiveRequest request;
  request.elements = 4;
  request.groups = {testing::make_group({2}, 0)};
  std::map<topo::Rank, std::vector<float>> data = {{0, std::vector<float>(4)}};
  request.data = &data;
  CHECK(tpusim::test_support::input_error_of([&] { validate_request(topology, request); }) ==
        "data: no buffer for core 1");
  data[1] = std::vector<float>(3);
  CHECK(tpusim::test_support::input_error_of([&] { validate_request(topology, request); }) ==
        "data: core 1 has 3 elements, the request says 4");
  CollectiveRequest permute;
  permute.kind = CollectiveKind::permute;
  permute.elements = 4;
  permute.permutation = {{0, 1}, {0, 2}};
  CHECK(tpusim::test_support::input_error_of([&] { validate_request(topology, permute); }) ==
        "permutation sends from core 0 twice");
  permute.permutation = {{0, 9}};
  CHECK(tpusim::test_support::input_error_of([&] { validate_request(topology, permute); }) ==
        "permutation names core 9 but topology 'ring-8' has cores 0..7");
}

TEST_CASE("a second simulator in one process is refused") {
  const auto topology = topo::preset("ring-8");
  Simulator first(topology);
  CHECK(tpusim::test_support::input_error_of([&] { Simulator second(topology); }) ==
        "a Simulator already exists in this process; SimGrid allows one simulation per process");
}

TEST_CASE("writing a trace needs trace recording") {
  const auto topology = topo::preset("ring-8");
  Simulator simulator(topology);
  CHECK(tpusim::test_support::input_error_of([&] { simulator.write_chrome_trace("/tmp/never.json"); }) ==
        "write_chrome_trace needs SimOptions::record_trace (the command line's --trace)");
}
