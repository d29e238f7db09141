#include "workloads/report/result_files.hpp"

#include "topologies/support/atomic_file.hpp"

namespace tpusim::workloads {

ResultPaths result_paths(const std::string& folder) {
  const std::string base = folder.empty() || folder.back() == '/' ? folder : folder + "/";
  return {folder, base + "summary.json", base + "collectives.csv", base + "trace.json"};
}

ResultPaths write_result_files(const std::string& folder, const RunConfig& config, const RunReport& report,
                               int trace_max_chips) {
  const ResultPaths paths = result_paths(folder);
  // The summary goes last: its presence means the other two are complete.
  write_file_atomically(paths.collectives, [&](std::ostream& out) { write_collectives_csv(out, report); });
  write_file_atomically(paths.trace,
                        [&](std::ostream& out) { write_chrome_trace(out, config, report, trace_max_chips); });
  write_file_atomically(paths.summary, run_report_json(config, report).dump(2) + "\n");
  return paths;
}

}  // namespace tpusim::workloads
