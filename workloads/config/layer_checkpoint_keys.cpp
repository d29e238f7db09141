// The keys of what a checkpointed layer holds for its backward pass (hardware.layer_checkpoint and
// hardware.layer_checkpoint_names; the policies are config/layer_checkpoints.hpp's table), apart from the
// other hardware keys (hardware_keys.cpp) as the one concept they share.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topologies/support/text.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/config/layer_checkpoints.hpp"

namespace tpusim::workloads {
namespace {

// "full, nothing: ...; minimal, every matmul ..." for the key's help.
std::string layer_checkpoint_summary() {
  std::vector<std::string> parts;
  for (const auto& row : layer_checkpoint_rows()) parts.push_back(row.name + ", " + row.doc);
  return join(parts, "; ");
}

}  // namespace

std::vector<ConfigKey> layer_checkpoint_keys() {
  return {
      ConfigKey("hardware.layer_checkpoint", "one of " + join(layer_checkpoint_names()),
                "Under rematerialization layers, what each layer holds for its backward pass rather than "
                "compute again, as MaxText's remat_policy names jax.checkpoint's policies "
                "(config/layer_checkpoints.hpp): " +
                    layer_checkpoint_summary() +
                    ". A value held in host memory takes no HBM between its forward and its backward "
                    "readers; its copies over the host link are not timed.")
          .defaults_to("full")
          .needs({"hardware.rematerialization"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            const std::string name = value.one_of(layer_checkpoint_names());
            if (name != "full" && r.config.hardware.rematerialization != mtf::RematerializationPolicy::layers)
              value.fail("a layer checkpoint policy applies only with hardware.rematerialization: layers");
            r.config.hardware.layer_checkpoint = name;
            for (const auto& row : layer_checkpoint_rows())
              if (row.name == name) r.config.hardware.layer_checkpoint_policy = row.policy;
          })
          .reports([](const RunConfig& c) { return nlohmann::json(c.hardware.layer_checkpoint); }),
      ConfigKey("hardware.layer_checkpoint_names",
                "map from MaxText's names of a layer's values to device or offload",
                "Under layer_checkpoint custom, the values each layer holds, by the names MaxText's "
                "decoder layers give them (" +
                    join(checkpoint_value_names()) +
                    "): device, held in HBM; offload, held in host memory. A value left out is computed "
                    "again (MaxText's remat).")
          .absent_means("none: every value computed again")
          .needs({"hardware.layer_checkpoint"})
          .with_subkeys("<value name>")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            HardwareConfig& h = r.config.hardware;
            if (h.layer_checkpoint != "custom" && !value.keys().empty())
              value.fail("names the values of layer_checkpoint custom, but hardware.layer_checkpoint is " +
                         h.layer_checkpoint);
            value.expect_map(checkpoint_value_names());
            for (const auto& name : value.keys()) {
              const std::string where = value.child(name).one_of({"device", "offload", "remat"});
              h.layer_checkpoint_names[name] = where;
              std::vector<std::string>& list =
                  where == "device" ? h.layer_checkpoint_policy.saved : h.layer_checkpoint_policy.offloaded;
              if (where == "remat") continue;
              for (const auto& suffix : checkpoint_op_suffixes(name)) list.push_back(suffix);
            }
          })
          .reports([](const RunConfig& c) { return nlohmann::json(c.hardware.layer_checkpoint_names); }),
  };
}

}  // namespace tpusim::workloads
