// tpusim validate's study: every registry row is among its points on every pod that runs its op, each size
// once per row, and a row that does not fit a pod is a skipped point, not a missing one.
#include "workloads/sweep/validation_study.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "sim/algorithm_registry.hpp"

using namespace tpusim::workloads;

TEST_CASE("validation study: every registry row runs at every size on the pods that run its op") {
  const ValidationStudy study("unused");
  const auto& spec = study.spec();
  // The sizes each (pod, op, algorithm) takes, and the ops each pod runs.
  std::map<std::string, std::set<std::string>> sizes;
  std::map<std::string, std::set<std::string>> ops;
  for (std::size_t p = 0; p < study.size(); ++p) {
    const auto values = spec.point_spec(p);
    sizes[values[kTopology] + " " + values[kOp] + " " + values[kAlgorithm]].insert(values[kBytes]);
    ops[values[kTopology]].insert(values[kOp]);
  }
  const std::set<std::string> every_size(validation_sizes().begin(), validation_sizes().end());
  CHECK(every_size == std::set<std::string>{"1KiB", "1MiB", "64MiB", "1GiB"});
  CHECK(ops.size() == 11);
  CHECK(ops.at("ring-8").size() == 6);
  CHECK(ops.at("tpu-v2-pod") == std::set<std::string>{"allreduce"});
  for (const auto& [topology, pod_ops] : ops) {
    for (const auto& row : tpusim::sim::algorithm_table()) {
      if (pod_ops.count(tpusim::sim::to_string(row.kind)) == 0) continue;
      const std::string key = topology + " " + tpusim::sim::to_string(row.kind) + " " + row.name;
      INFO(key);
      REQUIRE(sizes.count(key) == 1);
      CHECK(sizes.at(key) == every_size);
    }
  }
  // The rows that run only across slices are skipped on these single pods, with the reason.
  std::size_t skipped = 0;
  for (std::size_t p = 0; p < study.size(); ++p) {
    const auto values = spec.point_spec(p);
    const auto* row =
        tpusim::sim::find_algorithm(tpusim::sim::parse_collective_kind(values[kOp]), values[kAlgorithm]);
    if (row == nullptr || !row->needs_multislice) continue;  // compositions, and rows that run on one pod
    CHECK_THAT(study.skip_reason(p), Catch::Contains("multislice"));
    ++skipped;
  }
  CHECK(skipped > 0);
}
