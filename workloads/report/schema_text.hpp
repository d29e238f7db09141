#pragma once
// The documented schema, printed by `tpusim run --schema` (and --schema --json): every key of the config
// schema (config/config_schema.hpp) with its type, range, default and meaning, the model kinds with the model
// keys each takes, and those model keys. Generated from the rows, so it cannot drift from what the parser
// reads.
#include <nlohmann/json.hpp>
#include <ostream>

namespace tpusim::workloads {

void print_schema(std::ostream& out);
nlohmann::json schema_json();  // {"context", "keys", "model_kinds", "model_keys"}

}  // namespace tpusim::workloads
