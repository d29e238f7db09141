#pragma once
// The documented schemas, generated from the rows (config/key_row.hpp), so they cannot drift from what is
// read. `tpusim run --schema` (and --schema --json): every key of the run config (config/config_schema.hpp)
// with its type, range, default and meaning, the model kinds with the model keys each takes, and those model
// keys.
#include <nlohmann/json.hpp>
#include <ostream>

namespace tpusim::workloads {

void print_schema(std::ostream& out);
nlohmann::json schema_json();  // {"context", "keys", "model_kinds", "model_keys"}

// `tpusim search --schema` (and --schema --json): the search section's keys (search/search_spec.hpp), as
// the run config's keys are listed above.
void print_search_schema(std::ostream& out);
nlohmann::json search_schema_json();  // {"context", "keys"}

// `tpusim sweep --schema` (and --schema --json): the keys of a sweep file of either kind
// (sweep/study_file.hpp) and the keys a collective study's points give (sweep/collective_study_spec.hpp).
void print_sweep_schema(std::ostream& out);
nlohmann::json
sweep_schema_json();  // {"context", "training_keys", "collective_study_keys", "collective_point_keys"}

}  // namespace tpusim::workloads
