#include "workloads/collectives/measurement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/request_check.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::workloads {

using sim::Buffers;
using sim::CollectiveKind;
using sim::CollectiveRequest;
using sim::LinkLoad;
using sim::ReduceOp;

Measurement measure(sim::Simulator& simulator, const BuiltRequest& built, bool check_data) {
  TPUSIM_CHECK(built.auto_candidates.empty());  // resolve_auto first
  const auto& topology = simulator.topology();
  CollectiveRequest request = built.request;
  Measurement m;
  Buffers inputs, data;
  if (check_data) {
    // Inputs, results and the reference, plus the executor's copy of the inputs where it keeps one.
    const double copies = sim::reads_buffers_at_start(request.kind) ? 4.0 : 3.0;
    const double bytes = copies * topology.num_cores() * static_cast<double>(request.elements) * 4;
    if (bytes > kMaxCheckedDataBytes) {
      throw InputError(
          fmt::format("--check-data would need {} for {} cores of {} each; use a smaller --bytes",
                      format_bytes(bytes), topology.num_cores(), format_bytes(request.elements * 4.0)));
    }
    inputs = sim::random_inputs(request, 20180101);
    data = inputs;
    request.data = &data;
  }
  std::map<std::string, double> before;
  for (const auto& load : simulator.link_loads()) before[load.link] = load.bytes;
  m.result = simulator.run(request);
  for (auto load : simulator.link_loads()) {
    const auto found = before.find(load.link);
    if (found != before.end()) load.bytes -= found->second;
    if (load.bytes <= 0) continue;
    load.busy_s = load.bytes / load.bandwidth_Bps;
    m.links.push_back(load);
  }
  std::stable_sort(m.links.begin(), m.links.end(),
                   [](const LinkLoad& a, const LinkLoad& b) { return a.bytes > b.bytes; });
  request.data = nullptr;
  m.prediction = sim::predict_alpha_beta(topology, request);
  m.bound = sim::lower_bound(topology, request);
  if (check_data) {
    m.data_checked = true;
    const auto expected = sim::reference_result(request, inputs);
    m.data = sim::compare_with_reference(request, expected, data);
    const bool sums = request.op == ReduceOp::sum && (request.kind == CollectiveKind::allreduce ||
                                                      request.kind == CollectiveKind::reduce_scatter);
    const double p = std::max(1, sim::largest_group(request));
    // Each result element is a chain of at most p-1 fp32 additions of terms in [-1, 1].
    m.data_tolerance = sums ? p * p * std::ldexp(1.0, -23) : 0.0;
    m.data_ok = m.data.max_abs_error <= m.data_tolerance;
  }
  return m;
}

}  // namespace tpusim::workloads
