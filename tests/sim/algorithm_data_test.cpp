// Golden data test: every row of the algorithm table moves real fp32 data through the SimGrid executor, over
// groups of 1, 2, 3, 5, 6, 8, 12 and 16 members (and 2D shapes for the per-dimension ones), several groups at
// once, element counts that divide evenly, unevenly and below the group size. Sums within rounding, max
// exact.
#include <catch2/catch.hpp>

#include "sim/algorithm_registry.hpp"
#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

const std::vector<int> kSizes = {1, 2, 3, 5, 6, 8, 12, 16};
const std::vector<std::uint64_t> kElements = {0, 3, 37, 96, 1000};

// 32 cores: 4x4 chips, 2 cores each. Groups are laid out with a stride so that they cross chips.
topo::Topology test_topology() { return topo::topology_from_spec("torus:4x4,cores=2"); }

void check_kind(CollectiveKind kind, ReduceOp op) {
  const auto topology = test_topology();
  Simulator simulator(topology);
  int runs = 0;
  for (const auto& info : algorithm_table()) {
    // Rows that need several group dimensions have tests of their own (bucket2d: the registry's, multiport:
    // tests/sim/algorithms/multiport_test.cpp).
    if (info.kind != kind || info.shape == GroupShape::two_dimensional ||
        (info.shape == GroupShape::per_axis && info.fits != nullptr) || info.needs_multislice)
      continue;
    for (const int size : kSizes) {
      for (const std::uint64_t elements : kElements) {
        if (kind == CollectiveKind::alltoall && elements % size != 0) continue;
        CollectiveRequest request;
        request.kind = kind;
        request.op = op;
        request.algorithms = resolve_algorithms(request.kind, {info.name});
        request.elements = elements;
        // Two groups at once sharing the links: ranks 0, 2, 4, ... and 1, 3, 5, ...
        request.groups = {testing::make_group({size}, 0, 2)};
        if (size <= 16) request.groups.push_back(testing::make_group({size}, 1, 2));
        const auto run = testing::run_with_data(simulator, request, 11 * size + elements);
        INFO(info.name << " p=" << size << " elements=" << elements);
        CHECK(run.check.max_abs_error <= run.tolerance);
        if (elements > 0) CHECK(run.check.compared > 0);
        if (size == 1 || elements == 0) CHECK(run.result.time_s == 0);
        ++runs;
      }
    }
  }
  CHECK(runs > 0);
}

}  // namespace

TEST_CASE("allreduce algorithms reduce real data over groups of 1 to 16 members") {
  check_kind(CollectiveKind::allreduce, ReduceOp::sum);
}

TEST_CASE("allreduce algorithms compute an exact max") {
  check_kind(CollectiveKind::allreduce, ReduceOp::max);
}

TEST_CASE("reduce-scatter algorithms leave every member its reduced chunk") {
  check_kind(CollectiveKind::reduce_scatter, ReduceOp::sum);
}

TEST_CASE("allgather algorithms give every member all chunks") {
  check_kind(CollectiveKind::allgather, ReduceOp::sum);
}

TEST_CASE("alltoall algorithms deliver chunk j of member i as chunk i of member j") {
  check_kind(CollectiveKind::alltoall, ReduceOp::sum);
}

TEST_CASE("broadcast algorithms copy position 0 to every member") {
  check_kind(CollectiveKind::broadcast, ReduceOp::sum);
}

TEST_CASE("bucket2d and per-dimension compositions reduce over 2D groups") {
  const auto topology = test_topology();
  Simulator simulator(topology);
  const std::vector<std::vector<int>> shapes = {{4, 4}, {2, 3}, {3, 5}, {1, 4}, {4, 1}, {2, 8}, {1, 1}};
  const std::vector<std::vector<std::string>> choices = {
      {"bucket2d"}, {"ring", "bidir_ring"}, {"bidir_ring", "halving_doubling"}, {"ring", "ring"}};
  for (const auto& shape : shapes) {
    for (const auto& names : choices) {
      for (const std::uint64_t elements : kElements) {
        for (const ReduceOp op : {ReduceOp::sum, ReduceOp::max}) {
          CollectiveRequest request;
          request.op = op;
          request.algorithms = resolve_algorithms(request.kind, names);
          request.elements = elements;
          request.groups = {testing::make_group(shape, 0, 1)};
          const int size = request.groups.front().size();
          if (2 * size <= topology.num_cores()) request.groups.push_back(testing::make_group(shape, size, 1));
          const auto run = testing::run_with_data(simulator, request, elements + size);
          INFO(names.front() << " " << shape[0] << "x" << shape[1] << " elements=" << elements);
          CHECK(run.check.max_abs_error <= run.tolerance);
        }
      }
    }
  }
}

TEST_CASE("reduce-scatter and allgather composed per dimension keep flat chunk order") {
  const auto topology = test_topology();
  Simulator simulator(topology);
  for (const auto kind : {CollectiveKind::reduce_scatter, CollectiveKind::allgather}) {
    for (const auto& shape : std::vector<std::vector<int>>{{3, 5}, {2, 3}, {4, 4}, {1, 6}}) {
      for (const std::uint64_t elements : kElements) {
        CollectiveRequest request;
        request.kind = kind;
        request.algorithms = resolve_algorithms(request.kind, {"ring", "bidir_ring"});
        request.elements = elements;
        request.groups = {testing::make_group(shape, 1, 2)};
        const auto run = testing::run_with_data(simulator, request, 3 + elements);
        INFO(to_string(kind) << " " << shape[0] << "x" << shape[1] << " elements=" << elements);
        CHECK(run.check.max_abs_error <= run.tolerance);
      }
    }
  }
}

TEST_CASE("groups from groups_along run concurrently and each reduces its own members") {
  const auto topology = topo::preset("tpu-v2-32");
  Simulator simulator(topology);
  for (const char* axes : {"x", "core+x", "y", "core"}) {
    CollectiveRequest request;
    request.algorithms = resolve_algorithms(request.kind, {"bidir_ring"});
    request.elements = 1001;
    request.groups = topo::groups_along(topology, topo::parse_group_axes(topology, axes));
    const auto run = testing::run_with_data(simulator, request);
    INFO(axes);
    CHECK(run.check.max_abs_error <= run.tolerance);
  }
}

TEST_CASE("permute moves whole buffers and zeroes ranks that receive nothing") {
  const auto topology = topo::preset("torus-4x4");
  Simulator simulator(topology);
  CollectiveRequest request;
  request.kind = CollectiveKind::permute;
  request.elements = 100;
  request.permutation = {{0, 5}, {5, 0}, {3, 9}, {7, 7}};
  const auto run = testing::run_with_data(simulator, request);
  CHECK(run.check.max_abs_error == 0);
  CHECK(run.result.messages == 3);
}
