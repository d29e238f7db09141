#pragma once
// The `model:` section of a config. model.kind is a row of the config schema (config/config_schema.hpp); the
// other model keys depend on the kind, so each is a ModelKey row here, and each kind's row
// (models/model_kinds.hpp) lists the keys it takes, with their defaults.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/config/config_node.hpp"
#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

struct ModelKey {
  std::string name;   // without "model.": "d_ff"
  std::string type;   // "whole number"
  std::string range;  // "at least 1", or ""
  std::string doc;
  std::function<void(const ConfigNode& value, ModelConfig& model)> read;
  std::function<nlohmann::json(const ModelConfig& model)> resolved;  // in summary.json's config block
  // For a key that is the size of the tensor dimension of its name (model.d_ff sizes d_ff): that size.
  std::function<std::int64_t(const ModelConfig& model)> dimension_size;
};

const std::vector<ModelKey>& model_key_table();  // in the order --schema lists them
const ModelKey& model_key(const std::string& name);  // a bug if there is no such row
// "kind", then every kind's keys in kind order: the keys a model section may have.
std::vector<std::string> all_model_keys();

// The size of a tensor dimension a model kind has (1 for other names).
std::int64_t model_dimension_size(const ModelConfig& model, const std::string& dim);

}  // namespace tpusim::workloads
