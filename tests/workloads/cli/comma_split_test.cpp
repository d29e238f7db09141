// The YAML comma trap (issue 29, item 3): a flow list or map splits a topology spec such as
// torus:4x4,cores=2 at its commas. Each row writes the trap the way a user would and expects one line at the
// piece's file, line and key that says to quote the spec; the same specs quoted, or in a block list, run.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "input_rows.hpp"

using tpusim::cli_test::check_row;
using tpusim::cli_test::Row;

namespace {

// The topology line is line 4.
std::string sweep_of(const std::string& topology_line) {
  return "name: s\nbase: tiny-mlp\nvary:\n  " + topology_line + "\n  mesh.shape: [batch:*;model:1]\n";
}

const std::string kCollectiveSweep =
    "name: c\n"                                                            // 1
    "kind: collectives\n"                                                  // 2
    "vary:\n"                                                              // 3
    "  collective.op: [allreduce]\n"                                       // 4
    "  collective.algorithm: [ring]\n"                                     // 5
    "  collective.bytes: [4KiB]\n"                                         // 6
    "  hardware.topology: [ring:4,cores=2,bw=10GBps, 'ring:8,cores=2']\n"  // 7
    "  collective.group_axes: [default]\n";

const std::string kQuote = "which YAML split at its commas; quote specs that contain commas, e.g. ";

std::vector<Row> table() {
  return {
      // The issue's own example: before, "cores=2 repeats vary.hardware.topology[1]".
      {"two specs with cores in a flow list",
       {"sweep", "s.yaml", "--dry-run"},
       {{"s.yaml", sweep_of("hardware.topology: [torus:4x4,cores=2, torus:8x8,cores=2]")}},
       2,
       {"s.yaml:4: vary.hardware.topology[1]: 'cores=2' is a piece of the topology spec "
        "'torus:4x4,cores=2', " +
        kQuote + "['torus:4x4,cores=2', ...]"}},
      // Before, torus:4x4 ran as a pod of single-core chips and 'cores=2' failed as an unknown preset.
      {"one spec with cores before a preset",
       {"sweep", "s.yaml", "--dry-run"},
       {{"s.yaml", sweep_of("hardware.topology: [torus:2x2,cores=2, tpu-v2-32]")}},
       2,
       {"s.yaml:4: vary.hardware.topology[1]: 'cores=2'", "'torus:2x2,cores=2'"}},
      {"a spec of three parts in a collective sweep names the whole spec",
       {"sweep", "c.yaml", "--dry-run"},
       {{"c.yaml", kCollectiveSweep}},
       2,
       {"c.yaml:7: vary.hardware.topology[1]: 'cores=2' is a piece of the topology spec "
        "'ring:4,cores=2,bw=10GBps'",
        "['ring:4,cores=2,bw=10GBps', ...]"}},
      {"a spec in a flow map of a sweep's points",
       {"sweep", "s.yaml", "--dry-run"},
       {{"s.yaml", "name: s\nbase: tiny-mlp\npoints:\n  - {hardware.topology: torus:2x2,cores=2}\n"}},
       2,
       {"s.yaml:4: points[0].hardware.topology: 'cores=2' is a piece of the topology spec "
        "'torus:2x2,cores=2'",
        kQuote + "{hardware.topology: 'torus:2x2,cores=2'}"}},
      {"a spec in a flow map of a run config",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", "base: tiny-mlp\nhardware: {topology: torus:2x2,cores=2}\n"}},
       2,
       {"c.yaml:2: hardware.topology: 'cores=2'", "{topology: 'torus:2x2,cores=2'}"}},
      // What the message asks for works, and so does a block list, which YAML does not split at commas.
      {"quoted specs in a flow list",
       {"sweep", "s.yaml", "--dry-run"},
       {{"s.yaml", sweep_of("hardware.topology: ['torus:2x2,cores=2', \"torus:4x2,cores=2,bw=10GBps\"]")}},
       0,
       {"torus:2x2,cores=2 (8 cores)", "torus:4x2,cores=2,bw=10GBps (16 cores)"}},
      {"specs in a block list",
       {"sweep", "s.yaml", "--dry-run"},
       {{"s.yaml", sweep_of("hardware.topology:\n    - torus:2x2,cores=2\n    - torus:4x2,cores=2")}},
       0,
       {"torus:2x2,cores=2 (8 cores)", "torus:4x2,cores=2 (16 cores)"}},
  };
}

}  // namespace

TEST_CASE(
    "cli: a topology spec split at its commas by a YAML flow list or map is one line saying to quote it") {
  for (const auto& row : table()) {
    SECTION(row.what) { check_row(row); }
  }
}
