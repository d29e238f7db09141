#pragma once
// `tpusim sweep --schema` (and --schema --json): the keys of a sweep file of either kind (study_file.hpp) and
// the keys a collective study's points give (collective_study_spec.hpp), listed as the run config's keys are
// (report/schema_text.hpp).
#include <nlohmann/json.hpp>
#include <ostream>

namespace tpusim::workloads {

void print_sweep_schema(std::ostream& out);
// {"context", "training_keys", "collective_study_keys", "collective_point_keys"}
nlohmann::json sweep_schema_json();

}  // namespace tpusim::workloads
