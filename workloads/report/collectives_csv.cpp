#include <fmt/format.h>

#include "topologies/support/did_you_mean.hpp"
#include "workloads/report/result_files.hpp"

namespace tpusim::workloads {

const std::vector<std::string> kCollectivesCsvColumns = {"index",         "op",
                                                         "tensor",        "reason",
                                                         "kind",          "reduce",
                                                         "mesh_axes",     "group_size",
                                                         "num_groups",    "elements_per_core",
                                                         "element_bytes", "bytes_per_core",
                                                         "time_s",        "algbw_Bps",
                                                         "busbw_Bps"};

namespace {
// Names come from the graph and may hold commas; quote every text field (RFC 4180).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}
}  // namespace

void write_collectives_csv(std::ostream& out, const RunReport& report) {
  out << join(kCollectivesCsvColumns, ",") << "\n";
  int index = 0;
  for (const auto& c : report.collectives) {
    const auto& r = c.record;
    const double algbw = c.time_s > 0 ? double(r.bytes_per_core) / c.time_s : 0.0;
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{:.9g},{:.6g},{:.6g}\n", index++,
                       quoted(r.op_name), quoted(r.tensor), quoted(r.reason), sim::to_string(r.kind),
                       r.reduce == sim::ReduceOp::sum ? "sum" : "max", quoted(join(r.mesh_dims, "+")),
                       r.group_size, r.num_groups, r.elements_per_core, r.element_bytes, r.bytes_per_core,
                       c.time_s, algbw, c.busbw_Bps);
  }
}

}  // namespace tpusim::workloads
