#pragma once
// The `model:` section of a config: which keys each kind of model takes, their parsing and the limits that
// keep the engine's 64-bit counts from overflowing.
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/config/config_node.hpp"
#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

std::vector<std::string> model_keys(ModelKind kind);
// Tensor dimension names a model of this kind has, which layout rules may name.
std::vector<std::string> model_dimension_names(ModelKind kind);
// The keys of every kind, for "did you mean" before the kind is known.
std::vector<std::string> all_model_keys();

// Parses and checks the section; problems are ConfigNode failures ("file:line: model.key: ...").
ModelConfig parse_model(const ConfigNode& node);
// The size of a tensor dimension named in model_dimension_names (1 for other names).
std::int64_t model_dimension_size(const ModelConfig& model, const std::string& dim);

}  // namespace tpusim::workloads
