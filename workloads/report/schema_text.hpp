#pragma once
// The documented schemas, generated from the rows (config/key_row.hpp), so they cannot drift from what is
// read. `tpusim run --schema` (and --schema --json): every key of the run config (config/config_schema.hpp)
// with its type, range, default and meaning, the model kinds with the model keys each takes, and those model
// keys.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "workloads/config/key_row.hpp"

namespace tpusim::workloads {

void print_schema(std::ostream& out);
nlohmann::json schema_json();  // {"context", "keys", "model_kinds", "model_keys"}

// One row's entry, as every --schema lists its keys (search/search_schema.hpp, sweep/sweep_schema.hpp): the
// key, then its type, `extra` lines, range, default and doc under one another; and the row as JSON.
void print_row(std::ostream& out, const KeyDescription& row, const std::vector<std::string>& extra = {});
nlohmann::json row_json(const KeyDescription& row);  // {key, type, range, required, default, doc}

}  // namespace tpusim::workloads
