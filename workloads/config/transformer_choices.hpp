#pragma once
// How a decoder-only language model's blocks are built (model.mlp, model.norm, model.positions,
// model.attention): the Mesh-TensorFlow paper's choices by default, and those of the LMs trained on today's
// TPUs (Llama 2, Touvron et al. 2023, arXiv 2307.09288; MaxText's llama2 decoder block): a SwiGLU feed-forward
// (Shazeer 2020, arXiv 2002.05202), RMSNorm (Zhang and Sennrich 2019, arXiv 1910.07467), rotary position
// embeddings (Su et al. 2021, arXiv 2104.09864) and grouped-query attention (model.kv_heads; Ainslie et al.
// 2023, arXiv 2305.13245), attention run as one fused kernel (mesh_tf/attention_kernel.hpp).
#include "topologies/support/name_table.hpp"

namespace tpusim::workloads {

// relu(x W_in) W_out (the paper's), gelu(x W_in) W_out (GPT-2/3, BERT), or (silu(x W_gate) * x W_up) W_out.
enum class FeedForwardKind { relu, gelu, swiglu };
// (x - mean) / std * scale, or x / rms(x) * scale; both over d_model with a learned scale and no bias.
enum class NormKind { layer_norm, rms_norm };
// A learned [length, d_model] embedding added to the tokens', or q and k rotated by their positions.
enum class PositionKind { learned, rotary };
// The logits, softmax and context as separate ops that XLA fuses by its rules, or as one fused kernel whose
// logits never reach HBM, which masks on the core and skips the blocks above a causal diagonal.
enum class AttentionKind { dense, flash };

const NameTable<FeedForwardKind>& feed_forward_kinds();  // relu, gelu, swiglu
const NameTable<NormKind>& norm_kinds();                 // layer_norm, rms_norm
const NameTable<PositionKind>& position_kinds();         // learned, rotary
const NameTable<AttentionKind>& attention_kinds();       // dense, flash

}  // namespace tpusim::workloads
