#include "workloads/sweep/sweep_schema.hpp"

#include "workloads/report/report_context.hpp"
#include "workloads/report/schema_text.hpp"
#include "workloads/sweep/collective_study_spec.hpp"
#include "workloads/sweep/study_file.hpp"

namespace tpusim::workloads {

void print_sweep_schema(std::ostream& out) {
  out << "tpusim sweep schema: the keys of a sweep file, their types, defaults and meanings\n"
         "(workloads/README.md, section Sweeps).\n\nA training sweep (kind: training, the default):\n";
  for (const auto& row : training_sweep_keys()) print_row(out, row);
  out << "\nA collective study (kind: collectives):\n";
  for (const auto& row : collective_study_file_keys()) print_row(out, row);
  out << "\nThe keys a collective study's set, vary, points and exclude give; a point that leaves one out "
         "gets its\ndefault, as tpusim collective does:\n";
  for (const auto& row : collective_study_keys()) print_row(out, row);
}

nlohmann::json sweep_schema_json() {
  const auto rows_json = [](const auto& rows) {
    nlohmann::json keys = nlohmann::json::array();
    for (const auto& row : rows) keys.push_back(row_json(row));
    return keys;
  };
  return with_report_context({{"training_keys", rows_json(training_sweep_keys())},
                              {"collective_study_keys", rows_json(collective_study_file_keys())},
                              {"collective_point_keys", rows_json(collective_study_keys())}},
                             format::kSweepSchema, "sweep", {{"schema", true}});
}

}  // namespace tpusim::workloads
