#include "workloads/config/resolved_config.hpp"

#include "workloads/config/config_schema.hpp"
#include "workloads/models/model_kinds.hpp"
#include "workloads/models/model_section.hpp"

namespace tpusim::workloads {

nlohmann::json resolved_config(const RunConfig& config) {
  nlohmann::json resolved = nlohmann::json::object();
  for (const auto& row : config_schema()) {
    nlohmann::json& section = row.section().empty() ? resolved : resolved[row.section()];
    section[row.result_field()] = row.resolved(config);
  }
  for (const auto& use : model_kind(config.model.kind).keys) {
    resolved["model"][use.key] = model_key(use.key).resolved(config.model);
  }
  // Not keys: where the config was read, and what the topology is made of.
  resolved["source"] = config.source;
  const topo::Topology& topology = config.hardware.topology;
  resolved["hardware"]["chip_dims"] = topology.chip_dims();
  resolved["hardware"]["cores_per_chip"] = topology.cores_per_chip();
  resolved["hardware"]["cores"] = topology.num_cores();
  if (topology.multislice()) {
    resolved["hardware"]["slices"] = topology.slices();
    resolved["hardware"]["dcn_bandwidth_Bps"] = topology.dcn().bandwidth_Bps();
    resolved["hardware"]["dcn_latency_s"] = topology.dcn().latency_s();
  }
  return resolved;
}

}  // namespace tpusim::workloads
