#pragma once
// Helpers shared by the sim tests: hand-made groups, requests along group axes, and a data-checked
// collective run.
#include <catch2/catch.hpp>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "sim/algorithm_registry.hpp"
#include "sim/reference.hpp"
#include "sim/simulator.hpp"
#include "topologies/group.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::sim::testing {

// A group of the given dimensions over ranks first, first+stride, ... in that order.
inline topo::Group make_group(std::vector<int> dims, int first = 0, int stride = 1) {
  topo::Group group{std::move(dims), {}};
  const int size = std::accumulate(group.dims.begin(), group.dims.end(), 1, std::multiplies<int>());
  for (int i = 0; i < size; ++i) group.ranks.push_back(first + i * stride);
  return group;
}

// One message of `bytes` from src to dst: a permute of one pair.
inline CollectiveRequest send(topo::Rank src, topo::Rank dst, std::uint64_t bytes) {
  CollectiveRequest request;
  request.kind = CollectiveKind::permute;
  request.elements = bytes / 4;
  request.permutation = {{src, dst}};
  return request;
}

// A request for `op` over the groups along `axes` ("" for "all": every axis merged, so two-dimensional
// algorithms need their axes named), `bytes` of fp32 elements per member ("64MiB"), `algorithms` one name or
// one per group dimension ("" for the default); permute moves every member's buffer to the next member of its
// group. The command line's request builder (workloads/collectives) is the user-facing version of this.
inline CollectiveRequest request_along(const topo::Topology& topology, const std::string& op,
                                       const std::string& algorithms, const std::string& bytes,
                                       const std::string& axes = "") {
  CollectiveRequest request;
  request.kind = parse_collective_kind(op);
  if (!algorithms.empty()) request.algorithms = resolve_algorithms(request.kind, split(algorithms, ','));
  request.elements = parse_bytes(bytes) / 4;
  request.groups =
      topo::groups_along(topology, topo::parse_group_axes(topology, axes.empty() ? "all" : axes));
  if (request.kind == CollectiveKind::permute) {
    for (const auto& group : request.groups) {
      for (int i = 0; i < group.size(); ++i) {
        request.permutation.emplace_back(group.ranks[i], group.ranks[(i + 1) % group.size()]);
      }
    }
  }
  request.label = op + "/" + algorithms;
  return request;
}

// Runs `work` in a child process (SimGrid allows one Simulator per process) and returns what it wrote, to be
// read back with >>; the stream it writes to keeps doubles at full precision.
inline std::istringstream in_child(const std::function<void(std::ostream&)>& work) {
  const auto child = run_in_child([&] {
    std::ostringstream out;
    out.precision(17);
    work(out);
    return out.str();
  });
  return std::istringstream(child.output);
}

struct DataRun {
  CollectiveResult result;
  DataCheck check;
  double tolerance = 0;
};

// Runs the request with random data through the simulator and compares with the reference reduction.
inline DataRun run_with_data(Simulator& simulator, CollectiveRequest request, unsigned seed = 7) {
  auto inputs = random_inputs(request, seed);
  auto data = inputs;
  request.data = &data;
  DataRun run;
  run.result = simulator.run(request);
  request.data = nullptr;
  run.check = compare_with_reference(request, reference_result(request, inputs), data);
  int p = 1;
  for (const auto& group : request.groups) p = std::max(p, group.size());
  const bool sums = request.op == ReduceOp::sum && (request.kind == CollectiveKind::allreduce ||
                                                    request.kind == CollectiveKind::reduce_scatter);
  run.tolerance = sums ? 1e-6 * p * p : 0.0;
  return run;
}

// A data run as the line a child writes for its parent to check with check_data_lines.
inline void write_data_line(std::ostream& out, const std::string& name, const DataRun& run) {
  out << name << " " << run.check.max_abs_error << " " << run.tolerance << " " << run.check.compared << "\n";
}

// Checks each line write_data_line wrote (something compared, the error within tolerance); returns how many.
inline int check_data_lines(std::istream& in) {
  std::string name;
  double error = 0, tolerance = 0;
  std::uint64_t compared = 0;
  int runs = 0;
  while (in >> name >> error >> tolerance >> compared) {
    INFO(name);
    CHECK(compared > 0);
    CHECK(error <= tolerance);
    ++runs;
  }
  return runs;
}

}  // namespace tpusim::sim::testing
