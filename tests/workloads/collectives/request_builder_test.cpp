// The command line's request builder and measurement (workloads/collectives): the words a user types become a
// checked CollectiveRequest, defaults come from the algorithm registry, and bad words are one InputError.
#include "workloads/collectives/request_builder.hpp"

#include <catch2/catch.hpp>

#include "sim/algorithm_registry.hpp"
#include "tests/topologies/support/input_error_of.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "workloads/collectives/measurement.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

CollectiveSpec spec_of(const char* op, const char* algorithms, const char* bytes = "64MiB",
                       const char* axes = "") {
  CollectiveSpec spec;
  spec.op = op;
  spec.algorithms = algorithms;
  spec.bytes = bytes;
  spec.group_axes = axes;
  return spec;
}

std::string build_error(const char* topology_spec, const CollectiveSpec& spec) {
  const auto topology = topo::topology_from_spec(topology_spec);
  return tpusim::test_support::input_error_of([&] { build_request(topology, spec); });
}

}  // namespace

TEST_CASE("unknown words list the valid ones") {
  auto spec = spec_of("allreduce", "ring");
  spec.reduce = "min";
  CHECK(build_error("ring-8", spec) ==
        "unknown reduction 'min' (did you mean 'max'?); valid reductions are sum, max");
  CHECK(build_error("ring-8", spec_of("allreduce", "rign")) ==
        "unknown allreduce algorithm 'rign' (did you mean 'ring'?); valid allreduce algorithms are " +
            tpusim::join(sim::algorithm_names(sim::CollectiveKind::allreduce)));
  CHECK(build_error("ring-8", spec_of("allreduce", "ring,")) == "algorithm list 'ring,' has an empty name");
}

TEST_CASE("per-axis rows get one group dimension per axis, the cores first") {
  const auto topology = topo::preset("tpu-v2-32");
  CHECK(build_request(topology, spec_of("allreduce", "multiport", "64KiB")).group_axes == "core,x,y");
  CHECK(build_request(topology, spec_of("allreduce", "bucket2d", "64KiB")).group_axes == "core+x,y");
  CHECK(build_error("ring-8", spec_of("allreduce", "multiport", "64KiB")).find("multiport needs a group") ==
        0);
}

TEST_CASE("sizes must be whole fp32 elements") {
  CHECK(build_error("ring-8", spec_of("allreduce", "ring", "6")) ==
        "size '6' is 6 bytes, not a whole number of 4-byte fp32 elements");
  CHECK(build_error("ring-8", spec_of("allreduce", "ring", "64MiX")).find("'64MiX' is not a size") == 0);
  CHECK(build_error("ring-8", spec_of("allreduce", "ring", "0")) ==
        "size '0' is zero; a collective needs at least one 4-byte element");
}

TEST_CASE("the default algorithm and the default group axes come from the registry") {
  const auto topology = topo::preset("torus-4x4");
  for (const auto& row : sim::algorithm_table()) {
    // A row that runs only across slices refuses a single pod, naming what it needs (tests/sim covers it).
    if (row.needs_multislice) continue;
    const auto built = build_request(topology, spec_of(sim::to_string(row.kind), row.name, "64KiB"));
    INFO(sim::to_string(row.kind) << " " << row.name);
    // Two-dimensional and per-axis rows get both torus dimensions, every other row one group of all cores.
    const bool multi_dimensional =
        row.shape == sim::GroupShape::two_dimensional || row.shape == sim::GroupShape::per_axis;
    CHECK(built.group_axes == (multi_dimensional ? "x,y" : "x+y"));
    CHECK(built.request.groups.size() == 1);
    if (row.is_default) {
      const auto by_default = build_request(topology, spec_of(sim::to_string(row.kind), "", "64KiB"));
      CHECK(by_default.request.algorithms == std::vector<sim::AlgorithmRef>{sim::AlgorithmRef(row)});
    }
  }
}

TEST_CASE("an unknown axis is reported before an unknown algorithm") {
  CHECK(build_error("ring-8", spec_of("allreduce", "rign", "64MiB", "x,q")).find("unknown axis 'q'") == 0);
}

TEST_CASE("checking data counts the input copy all-to-all keeps when sizing its memory") {
  // 1024 cores x 1.25 MiB: inputs, results and reference take 3.75 GiB, the executor's copy of the inputs
  // brings it to 5 GiB, over the 4 GiB limit.
  const auto topology = topo::topology_from_spec("torus:32x32");
  const auto built = build_request(topology, spec_of("alltoall", "pairwise", "1310720"));
  sim::Simulator simulator(topology);
  CHECK(tpusim::test_support::input_error_of([&] {
          measure(simulator, built, true);
        }).find("--check-data would need 5 GiB") == 0);
}
