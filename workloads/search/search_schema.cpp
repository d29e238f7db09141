#include "workloads/search/search_schema.hpp"

#include "workloads/report/report_context.hpp"
#include "workloads/report/schema_text.hpp"
#include "workloads/search/search_spec.hpp"

namespace tpusim::workloads {

void print_search_schema(std::ostream& out) {
  out << "tpusim search schema: every key of a config's search: section, its type, its default and what "
         "it means.\nA key left out takes its default; the options of tpusim search and --set "
         "search.KEY=VALUE override\nthe keys (workloads/README.md, section Search).\n\nsearch:\n";
  for (const auto& row : search_keys()) print_row(out, row);
}

nlohmann::json search_schema_json() {
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& row : search_keys()) keys.push_back(row_json(row));
  return with_report_context({{"keys", keys}}, format::kSearchSchema, "search", {{"schema", true}});
}

}  // namespace tpusim::workloads
