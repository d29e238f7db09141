#include "topologies/support/did_you_mean.hpp"
#include "workloads/report/csv_writer.hpp"
#include "workloads/report/result_files.hpp"

namespace tpusim::workloads {

const std::vector<std::string> kCollectivesCsvColumns = {"index",         "op",
                                                         "tensor",        "reason",
                                                         "kind",          "reduce",
                                                         "mesh_axes",     "group_size",
                                                         "num_groups",    "elements_per_core",
                                                         "element_bytes", "bytes_per_core",
                                                         "time_s",        "algbw_Bps",
                                                         "busbw_Bps",     "issued_as"};

namespace {

// How the collective backend issued it, when not as the collective itself ("masked allreduce of 32 copies").
std::string issued_as(const mtf::CollectiveRecord& record) {
  std::vector<std::string> hows;
  for (const auto& issued : record.issued) {
    if (!issued.how.empty()) hows.push_back(issued.how);
  }
  return join(hows, "; ");
}

}  // namespace

void write_collectives_csv(std::ostream& out, const RunReport& report) {
  CsvWriter csv(out, kCollectivesCsvColumns);
  int index = 0;
  for (const auto& c : report.collectives) {
    const auto& r = c.record;
    const double algbw = c.time_s > 0 ? double(r.bytes_per_core) / c.time_s : 0.0;
    // Names come from the graph and may hold commas: the writer quotes them when they do.
    csv.number(index++)
        .text(r.op_name)
        .text(r.tensor)
        .text(r.reason)
        .text(sim::to_string(r.kind))
        .text(r.reduce == sim::ReduceOp::sum ? "sum" : "max")
        .text(join(r.mesh_dims, "+"))
        .number(r.group_size)
        .number(r.num_groups)
        .number(r.elements_per_core)
        .number(r.element_bytes)
        .number(r.bytes_per_core)
        .number(c.time_s)
        .number(algbw)
        .number(c.busbw_Bps)
        .text(issued_as(r))
        .end_row();
  }
}

}  // namespace tpusim::workloads
