#pragma once
// The resolved config of a run as summary.json records it (its "config" block): every key's value after
// defaults, from the rows of the schema (config_schema.hpp), so a new key appears without another edit.
#include <nlohmann/json.hpp>

#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

// {"name", "description", "source", "hardware": {...}, "mesh": {...}, "model": {...}, "training": {...}}:
// each row's value under its result name, the model keys of the model's kind, where the config came from,
// and facts of the topology that follow from its keys (chip_dims, cores_per_chip, cores).
nlohmann::json resolved_config(const RunConfig& config);

}  // namespace tpusim::workloads
