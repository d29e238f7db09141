#pragma once
// `tpusim search --schema` (and --schema --json): the search section's keys (search_spec.hpp), listed as the
// run config's keys are (report/schema_text.hpp).
#include <nlohmann/json.hpp>
#include <ostream>

namespace tpusim::workloads {

void print_search_schema(std::ostream& out);
nlohmann::json search_schema_json();  // {"context", "keys"}

}  // namespace tpusim::workloads
