#include "workloads/report/result_files.hpp"

#include "topologies/support/atomic_file.hpp"
#include "workloads/report/report_context.hpp"

namespace tpusim::workloads {

const std::vector<std::string> kRunResultFiles = {"summary.json", "collectives.csv", "trace.json"};

ResultPaths result_paths(const std::string& folder) {
  const std::string base = folder.empty() || folder.back() == '/' ? folder : folder + "/";
  return {folder, base + "summary.json", base + "collectives.csv", base + "trace.json"};
}

std::unique_ptr<StagedFolder> stage_result_folder(const std::string& folder) {
  return std::make_unique<StagedFolder>(folder, kRunResultFiles);
}

ResultPaths write_result_files(StagedFolder& staged, const RunConfig& config, const RunReport& report,
                               const TraceSelection& trace, const nlohmann::json& inputs) {
  const ResultPaths staged_paths = result_paths(staged.staged_path(""));
  write_file_atomically(staged_paths.collectives,
                        [&](std::ostream& out) { write_collectives_csv(out, report); });
  write_file_atomically(staged_paths.trace,
                        [&](std::ostream& out) { write_chrome_trace(out, config, report, trace); });
  write_file_atomically(staged_paths.summary, dump_report(run_report_json(config, report, inputs)) + "\n");
  staged.commit();
  return result_paths(staged.folder());
}

ResultPaths write_result_files(const std::string& folder, const RunConfig& config, const RunReport& report,
                               const TraceSelection& trace, const nlohmann::json& inputs) {
  StagedFolder staged(folder, kRunResultFiles);
  return write_result_files(staged, config, report, trace, inputs);
}

}  // namespace tpusim::workloads
