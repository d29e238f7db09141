// Every row of the algorithm registry, without a test of its own: it moves real data to the result of
// sim::reference_result on groups where it fits, its closed form (when it has one) equals the simulated time
// where the schedule is contention free over one-hop links, and a row without one gets none, never another
// algorithm's formula. A new row is tested here as soon as it is in the table.
#include "sim/algorithm_registry.hpp"

#include <catch2/catch.hpp>

#include "sim/bounds.hpp"
#include "sim/request_check.hpp"
#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

// The names a row runs under on a group: itself over the whole group, and for per-dimension rows also once
// per dimension (a composition of the row with itself).
std::vector<std::vector<std::string>> namings(const AlgorithmRow& row, const topo::Group& group) {
  std::vector<std::vector<std::string>> out = {{row.name}};
  if (row.shape == GroupShape::per_dimension && group.dims.size() > 1)
    out.push_back(std::vector<std::string>(group.dims.size(), row.name));
  return out;
}

bool fits(const topo::Topology& topology, const CollectiveRequest& request) {
  try {
    check_algorithms(topology, request);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// Whether the row runs on a group of one dimension (rows that do not, bucket2d and multiport, need a torus
// whose dimensions are rings of their own links for a contention-free schedule).
bool fits_one_dimension(const AlgorithmRow& row) {
  const auto topology = topo::topology_from_spec("torus:2x2x2");
  return fits(topology, testing::request_along(topology, to_string(row.kind), row.name, "64KiB", "all"));
}

}  // namespace

TEST_CASE("the table has one default per collective and names the defaults") {
  for (const char* kind : {"allreduce", "reduce_scatter", "allgather", "alltoall", "broadcast", "permute"}) {
    const std::string name = default_algorithm(parse_collective_kind(kind)).name;
    INFO(kind);
    REQUIRE(find_algorithm(parse_collective_kind(kind), name) != nullptr);
    CHECK(find_algorithm(parse_collective_kind(kind), name)->is_default);
  }
  CHECK(find_algorithm(CollectiveKind::allreduce, "no_such_algorithm") == nullptr);
}

TEST_CASE("a row that needs a multislice pod refuses a single pod, naming itself, and fits across slices") {
  const auto single = topo::topology_from_spec("torus:2x2");
  const auto sliced = topo::topology_from_spec("multislice:2x(torus:2x2)");
  int rows = 0;
  for (const auto& row : algorithm_table()) {
    if (!row.needs_multislice) continue;
    ++rows;
    INFO(to_string(row.kind) << " " << row.name);
    CHECK_THROWS_WITH(check_algorithms(single, testing::request_along(single, to_string(row.kind), row.name,
                                                                      "64KiB", "all")),
                      std::string(row.name) + " needs a multislice pod (topology multislice:...)");
    CHECK_NOTHROW(check_algorithms(sliced, testing::request_along(sliced, to_string(row.kind), row.name,
                                                                  "64KiB", "all")));
  }
  CHECK(rows >= 1);  // the hierarchical allreduce
}

TEST_CASE("every row moves real data to the reference result on groups where it fits") {
  // 32 cores: 4x4 chips of two cores. Groups take every second rank, so that they cross chips.
  const auto topology = topo::topology_from_spec("torus:4x4,cores=2");
  Simulator simulator(topology);
  const std::vector<std::vector<int>> shapes = {{2}, {3}, {5}, {8}, {16}, {2, 4}, {3, 2}, {4, 4}};
  for (const auto& row : algorithm_table()) {
    int runs = 0;
    for (const auto& shape : shapes) {
      const auto group = testing::make_group(shape, 0, 2);
      for (const auto& names : namings(row, group)) {
        for (const std::uint64_t elements : {37, 96}) {
          for (const ReduceOp op : {ReduceOp::sum, ReduceOp::max}) {
            CollectiveRequest request;
            request.kind = row.kind;
            request.op = op;
            request.algorithms = resolve_algorithms(request.kind, names);
            request.elements = elements;
            request.groups = {group};
            if (row.kind == CollectiveKind::permute) {
              for (int i = 0; i < group.size(); ++i)
                request.permutation.emplace_back(group.ranks[i], group.ranks[(i + 1) % group.size()]);
            }
            if (!fits(topology, request)) continue;
            const auto run = testing::run_with_data(simulator, request, runs + 1);
            INFO(to_string(row.kind) << " " << join(names, ",") << " on " << group.size() << " members, "
                                     << elements << " elements");
            CHECK(run.check.compared > 0);
            CHECK(run.check.max_abs_error <= run.tolerance);
            ++runs;
          }
        }
      }
    }
    INFO(to_string(row.kind) << " " << row.name << " fits none of the test groups: add a shape it fits");
    CHECK((runs > 0 || row.needs_multislice));
  }
}

// Checks the row's closed form on each group along the axes where the simulated schedule is contention free;
// returns how many it checked.
static int check_closed_forms(const AlgorithmRow& row, const topo::Topology& topology, Simulator& simulator,
                              const std::vector<const char*>& axes_list) {
  int checked = 0;
  for (const char* axes : axes_list) {
    const auto groups = topo::groups_along(topology, topo::parse_group_axes(topology, axes));
    for (const auto& names : namings(row, groups.front())) {
      auto request = testing::request_along(topology, to_string(row.kind), join(names, ","), "1MiB", axes);
      if (!fits(topology, request)) continue;
      const auto result = simulator.run(request);
      const auto prediction = predict_alpha_beta(topology, request);
      if (!prediction.uniform || !prediction.contention_free) continue;
      INFO(to_string(row.kind) << " " << join(names, ",") << " along " << axes);
      CHECK(result.time_s == Approx(prediction.time_s).epsilon(1e-9));
      if (row.closed_form == nullptr) {
        CHECK(prediction.closed_form_s < 0);
        CHECK(prediction.closed_form.empty());
      } else {
        CHECK(prediction.closed_form_s == Approx(result.time_s).epsilon(1e-9));
        CHECK_FALSE(prediction.closed_form.empty());
      }
      ++checked;
    }
  }
  return checked;
}

TEST_CASE("every closed form equals the simulated time where the schedule is contention free") {
  // A 2x2x2 torus is a hypercube: its snake ("all") is a ring of one-hop neighbours, x,y,z in group order
  // puts every xor partner one hop away, x,y+z is a 2x4 torus, and x is four pairs.
  const auto topology = topo::topology_from_spec("torus:2x2x2");
  Simulator simulator(topology);
  for (const auto& row : algorithm_table()) {
    const int checked = check_closed_forms(row, topology, simulator, {"all", "x,y,z", "x,y+z", "x"});
    INFO(to_string(row.kind) << " " << row.name << " is contention free on none of the test groups");
    // Its dimensions of two chips have one link each, which both directions of a bidirectional ring share:
    // the next test case checks the rows that need several group dimensions.
    if (row.closed_form != nullptr && fits_one_dimension(row)) CHECK(checked > 0);
  }
}

TEST_CASE(
    "every closed form of a row that needs several dimensions equals the simulated time on a 4x4 torus") {
  // The rows and columns of a 4x4 torus are rings of their own links.
  const auto topology = topo::topology_from_spec("torus:4x4");
  Simulator simulator(topology);
  int rows = 0;
  for (const auto& row : algorithm_table()) {
    if (fits_one_dimension(row) || row.needs_multislice) continue;
    const int checked = check_closed_forms(row, topology, simulator, {"x,y", "y,x"});
    INFO(to_string(row.kind) << " " << row.name << " is contention free on none of the test groups");
    if (row.closed_form != nullptr) CHECK(checked > 0);
    ++rows;
  }
  CHECK(rows > 0);
}

TEST_CASE("a row without a closed form gets none, not another algorithm's") {
  const auto topology = topo::preset("ring-8");
  int rows = 0;
  for (const auto& row : algorithm_table()) {
    if (row.closed_form != nullptr) continue;
    const auto request = testing::request_along(topology, to_string(row.kind), row.name, "64KiB");
    REQUIRE_NOTHROW(validate_request(topology, request));
    const auto form = closed_form(topology, request, 1e-6, 1e9);
    INFO(to_string(row.kind) << " " << row.name);
    CHECK(form.time_s < 0);
    CHECK(form.formula.empty());
    ++rows;
  }
  CHECK(rows > 0);
}
