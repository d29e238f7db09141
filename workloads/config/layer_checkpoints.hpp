#pragma once
// What a checkpointed layer holds for its backward pass (hardware.layer_checkpoint, under
// hardware.rematerialization: layers): MaxText's remat_policy values (MaxText/layers/models.py), each a
// jax.checkpoint policy over the names MaxText's decoder layers give their values with checkpoint_name, and
// which ops of transformer_lm (workloads/models/transformer_layers.cpp) those names stand for.
#include <string>
#include <vector>

#include "mesh_tf/rematerialization.hpp"

namespace tpusim::workloads {

struct LayerCheckpointRow {
  std::string name;  // as MaxText's remat_policy spells it
  mtf::LayerCheckpointPolicy policy;
  std::string doc;
};
// full, minimal, save_dot_except_mlpwi, save_dot_except_mlp, save_qkv_proj, save_out_proj, minimal_flash,
// qkv_proj_offloaded, minimal_offloaded, custom (whose policy comes from hardware.layer_checkpoint_names).
const std::vector<LayerCheckpointRow>& layer_checkpoint_rows();
std::vector<std::string> layer_checkpoint_names();

// MaxText's checkpoint names (decoder_layer_input, query_proj, key_proj, value_proj, qkv_proj, out_proj,
// context, mlpwi, mlpwi_0, mlpwi_1, mlpwo) and the suffixes of the transformer_lm ops that compute them.
std::vector<std::string> checkpoint_value_names();
const std::vector<std::string>& checkpoint_op_suffixes(const std::string& checkpoint_name);

}  // namespace tpusim::workloads
