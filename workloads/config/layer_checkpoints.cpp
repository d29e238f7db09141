#include "workloads/config/layer_checkpoints.hpp"

#include <algorithm>
#include <map>

#include "topologies/support/check.hpp"

namespace tpusim::workloads {
namespace {

// MaxText's names for the values of a decoder layer and transformer_lm's ops that compute them: q, k and v
// are saved as projected (rotary embeddings are computed again from them); qkv_proj is the fused projection
// of fused_qkv, the three here; mlpwi is the fused gate-and-up of fused_mlp (mlpwi_0 the gate, mlpwi_1 the
// up projection, or mlpwi the one input matrix of a plain feed-forward); context is the attention's output
// before its projection; decoder_layer_input the value one layer hands the next.
const std::map<std::string, std::vector<std::string>>& suffixes() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"decoder_layer_input", {"/layer_output"}},
      {"query_proj", {"self_attention/q_proj"}},
      {"key_proj", {"self_attention/k_proj"}},
      {"value_proj", {"self_attention/v_proj"}},
      {"qkv_proj", {"self_attention/q_proj", "self_attention/k_proj", "self_attention/v_proj"}},
      {"out_proj", {"self_attention/output"}},
      {"context", {"self_attention/context"}},
      {"mlpwi", {"ffn/hidden", "ffn/up_proj"}},
      {"mlpwi_0", {"ffn/hidden"}},
      {"mlpwi_1", {"ffn/up_proj"}},
      {"mlpwo", {"ffn/output"}},
  };
  return table;
}

std::vector<std::string> ops_of(const std::vector<std::string>& names) {
  std::vector<std::string> ops;
  for (const auto& name : names) {
    for (const auto& suffix : checkpoint_op_suffixes(name))
      if (std::find(ops.begin(), ops.end(), suffix) == ops.end()) ops.push_back(suffix);
  }
  return ops;
}

mtf::LayerCheckpointPolicy saving(const std::vector<std::string>& names) {
  mtf::LayerCheckpointPolicy policy;
  policy.saved = ops_of(names);
  return policy;
}

}  // namespace

const std::vector<LayerCheckpointRow>& layer_checkpoint_rows() {
  static const std::vector<LayerCheckpointRow> rows = [] {
    mtf::LayerCheckpointPolicy minimal;
    minimal.save_dots = true;
    mtf::LayerCheckpointPolicy minimal_flash = saving({"context"});
    minimal_flash.save_dots = true;
    mtf::LayerCheckpointPolicy qkv_offloaded;
    qkv_offloaded.offloaded = ops_of({"query_proj", "key_proj", "value_proj"});
    mtf::LayerCheckpointPolicy minimal_offloaded;
    minimal_offloaded.offload_dots = true;
    return std::vector<LayerCheckpointRow>{
        {"full", {}, "nothing: every value the backward pass reads is computed again"},
        {"minimal", minimal,
         "every matmul without batch dimensions (the projections: checkpoint_dots_with_no_batch_dims)"},
        {"save_dot_except_mlpwi", saving({"query_proj", "value_proj", "key_proj", "qkv_proj", "out_proj", "mlpwo"}),
         "q, k, v, the attention's and the feed-forward's output projections"},
        {"save_dot_except_mlp", saving({"query_proj", "value_proj", "key_proj", "qkv_proj", "out_proj"}),
         "q, k, v and the attention's output projection"},
        {"save_qkv_proj", saving({"query_proj", "value_proj", "key_proj", "qkv_proj"}), "q, k and v"},
        {"save_out_proj", saving({"out_proj"}), "the attention's output projection"},
        {"minimal_flash", minimal_flash, "as minimal, and the attention's context"},
        {"qkv_proj_offloaded", qkv_offloaded, "q, k and v, in host memory"},
        {"minimal_offloaded", minimal_offloaded, "as minimal, in host memory"},
        {"custom", {}, "each of MaxText's names as hardware.layer_checkpoint_names says"},
    };
  }();
  return rows;
}

std::vector<std::string> layer_checkpoint_names() {
  std::vector<std::string> names;
  for (const auto& row : layer_checkpoint_rows()) names.push_back(row.name);
  return names;
}

std::vector<std::string> checkpoint_value_names() {
  std::vector<std::string> names;
  for (const auto& [name, ops] : suffixes()) names.push_back(name);
  return names;
}

const std::vector<std::string>& checkpoint_op_suffixes(const std::string& checkpoint_name) {
  const auto found = suffixes().find(checkpoint_name);
  TPUSIM_CHECK(found != suffixes().end());
  return found->second;
}

}  // namespace tpusim::workloads
