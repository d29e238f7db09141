#include "workloads/models/model_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/text.hpp"
#include "workloads/models/image_layers.hpp"
#include "workloads/models/model_builder.hpp"

namespace tpusim::workloads {
namespace {

std::string transformer_summary(const ModelConfig& m, const std::string& layers) {
  return fmt::format("{}, d_model {}, d_ff {}, heads {}, d_kv {}, vocab {}, batch {} x {} tokens", layers,
                     m.d_model, m.d_ff, m.heads, m.d_kv, m.vocab, m.batch, m.length);
}
std::string activations(const ModelConfig& m) {
  return fmt::format(", {} activations", dtype_name(m.activation_dtype));
}

std::string mlp_summary(const ModelConfig& m) {
  return fmt::format("{} layers, d_model {}, d_ff {}, batch {}", m.layers, m.d_model, m.d_ff, m.batch) +
         activations(m);
}
std::string lm_summary(const ModelConfig& m) {
  std::string blocks;
  if (m.key_value_heads() != m.heads) blocks += fmt::format(", {} kv heads", m.key_value_heads());
  if (m.mlp != FeedForwardKind::relu) blocks += ", " + feed_forward_kinds().name_of(m.mlp);
  if (m.norm != NormKind::layer_norm) blocks += ", " + norm_kinds().name_of(m.norm);
  if (m.positions != PositionKind::learned) blocks += ", " + position_kinds().name_of(m.positions) + " positions";
  if (m.attention == AttentionKind::flash)
    blocks += fmt::format(", flash attention ({}x{} blocks)", m.flash_block_q, m.flash_block_kv);
  return transformer_summary(m, fmt::format("{} layers", m.layers)) + blocks + activations(m);
}

// Grouped-query attention splits the query heads into kv_heads groups.
ModelSizeProblem lm_check_sizes(const ModelConfig& m) {
  if (m.heads % m.key_value_heads() != 0) {
    return {"kv_heads", fmt::format("{} key and value heads do not divide the {} query heads into equal groups",
                                    m.key_value_heads(), m.heads)};
  }
  if (m.positions == PositionKind::rotary && m.d_kv % 2 != 0)
    return {"d_kv", fmt::format("rotary positions pair the halves of d_kv, which {} is odd", m.d_kv)};
  return {};
}

std::vector<DerivedDimension> lm_derived_dimensions(const ModelConfig& m) {
  return {{"q_per_kv", "kv_heads", m.heads / m.key_value_heads(),
           fmt::format("heads {} / kv_heads {}", m.heads, m.key_value_heads())}};
}
std::string encoder_decoder_summary(const ModelConfig& m) {
  return transformer_summary(m, fmt::format("{}+{} layers", m.layers, m.decoder_layers)) + activations(m);
}
std::string moe_summary(const ModelConfig& m) {
  return transformer_summary(m, fmt::format("{} layers", m.layers)) + fmt::format(", {} experts", m.experts) +
         activations(m);
}

std::string bert_summary(const ModelConfig& m) {
  return transformer_summary(m, fmt::format("BERT, {} layers", m.layers)) +
         fmt::format(", {} predictions per sequence", m.predictions) + activations(m);
}

// Masked positions are distinct positions of a sequence.
ModelSizeProblem bert_check_sizes(const ModelConfig& m) {
  if (m.predictions <= m.length) return {};
  return {"predictions",
          fmt::format("{} masked positions do not fit in a sequence of length {}", m.predictions, m.length)};
}

// The engine would find this too, but later and without pointing at the layout.
std::string moe_check_layout(const ModelConfig&, const mtf::LayoutRules& layout) {
  const auto experts_axis = layout.mesh_dim_for("experts");
  if (!experts_axis || experts_axis != layout.mesh_dim_for("d_ff")) return "";
  return fmt::format(
      "experts and d_ff are both laid out on mesh axis '{}', but the expert weights [experts, d_model, d_ff] "
      "cannot split two dimensions over one mesh axis",
      *experts_axis);
}

std::string resnet_summary(const ModelConfig& m) {
  return fmt::format(
             "ResNet-{} (blocks {}), width {}, {} classes, batch {} x {}x{}x{} images{}", resnet_depth(m),
             join_blocks(m.stage_blocks), m.width, m.classes, m.batch, m.image_size, m.image_size,
             m.image_channels,
             m.batch_norm_span > 0 ? fmt::format(", batch norm over groups of {}", m.batch_norm_span) : "") +
         activations(m);
}
std::string unet_summary(const ModelConfig& m) {
  return fmt::format("U-Net, {} levels, width {}, {} classes, batch {} x {}x{}x{} images", m.levels, m.width,
                     m.classes, m.batch, m.image_size, m.image_size, m.image_channels) +
         activations(m);
}

// The engine would find this too, but later and without pointing at the layout.
std::string unet_check_layout(const ModelConfig&, const mtf::LayoutRules& layout) {
  const auto axis = layout.mesh_dim_for("channels");
  if (!axis) return "";
  return fmt::format(
      "channels is laid out on mesh axis '{}', but the U-Net concatenates its skip connections along "
      "channels, which cannot be split",
      *axis);
}

// h and w halve at every stride-2 stage, channels and filters double: the smallest sizes are the image size
// over 2^halvings and the width.
template <ImageHalvings (*halvings_of)(const ModelConfig&)>
std::vector<DerivedDimension> image_derived_dimensions(const ModelConfig& m) {
  const std::int64_t factor = std::int64_t(1) << halvings_of(m).count;
  const std::string how = fmt::format("image_size {} / {}", m.image_size, factor);
  return {{"h", "image_size", m.image_size / factor, how},
          {"w", "image_size", m.image_size / factor, how},
          {"channels", "width", m.width, fmt::format("width {}", m.width)},
          {"filters", "width", m.width, fmt::format("width {}", m.width)}};
}

// With batch norm over groups of images, batch counts the groups and bn_images the images of one.
std::vector<DerivedDimension> resnet_derived_dimensions(const ModelConfig& m) {
  std::vector<DerivedDimension> dims = image_derived_dimensions<resnet_halvings>(m);
  if (m.batch_norm_span == 0) {
    // No groups: the model has no such dimension, and a layout rule that splits it splits nothing.
    dims.push_back({kBatchNormGroupDim, "batch_norm_span", 1, "batch_norm_span all: one group"});
    return dims;
  }
  dims.push_back({"batch", "batch_norm_span", m.batch / m.batch_norm_span,
                  fmt::format("batch {} / batch_norm_span {}", m.batch, m.batch_norm_span)});
  dims.push_back({kBatchNormGroupDim, "batch_norm_span", m.batch_norm_span,
                  fmt::format("batch_norm_span {}", m.batch_norm_span)});
  return dims;
}

template <ImageHalvings (*halvings_of)(const ModelConfig&)>
ModelSizeProblem image_check_sizes(const ModelConfig& m) {
  if (m.batch_norm_span > 0 && m.batch % m.batch_norm_span != 0) {
    return {"batch_norm_span",
            fmt::format("{} does not divide the batch of {} images into groups", m.batch_norm_span, m.batch)};
  }
  const ImageHalvings halvings = halvings_of(m);
  const std::int64_t factor = std::int64_t(1) << halvings.count;
  if (m.image_size % factor == 0) return {};
  return {"image_size", fmt::format("{} is not a multiple of {}: the model halves the image {} times ({})",
                                    m.image_size, factor, halvings.count, halvings.reason)};
}

}  // namespace

const std::vector<ModelKindInfo>& model_kinds() {
  const std::vector<std::string> transformer_dims = {"batch", "length", "d_model", "d_ff",
                                                     "heads", "d_kv",   "vocab"};
  // The keys every Transformer kind takes after its layer counts, and before its own.
  const std::vector<ModelKeyUse> transformer_keys = {{"d_model"}, {"d_ff"},  {"heads"}, {"d_kv"},
                                                     {"vocab"},   {"batch"}, {"length"}};
  const auto keys = [](std::vector<ModelKeyUse> first, const std::vector<ModelKeyUse>& middle,
                       const std::vector<ModelKeyUse>& last) {
    first.insert(first.end(), middle.begin(), middle.end());
    first.insert(first.end(), last.begin(), last.end());
    return first;
  };
  const ModelKeyUse activation_dtype = {"activation_dtype", "bf16"};
  const ModelKeyUse dropout = {"dropout", "0"};
  static const std::vector<ModelKindInfo> rows = {
      {ModelKind::mlp,
       "mlp",
       "A multilayer perceptron, the paper's two-layer example repeated: layers blocks relu(x . in[d_model, "
       "d_ff]) . out[d_ff, d_model], trained to reproduce its input.",
       {{"layers"}, {"d_model"}, {"d_ff"}, {"batch"}, activation_dtype},
       {"batch", "d_model", "d_ff"},
       "batch:batch;d_ff:model",
       "tiny-mlp",
       build_mlp,
       kMlpFormulas,
       nullptr,
       mlp_summary,
       nullptr,
       nullptr,
       false},
      {ModelKind::transformer_lm, "transformer_lm",
       "The paper's decoder-only language model: token embedding, layers blocks of causal self-attention "
       "and feed-forward, a separate softmax; trained on next-token prediction. Its blocks may be built as "
       "today's LMs build theirs (Llama 2: kv_heads, mlp swiglu, norm rms_norm, positions rotary) and its "
       "attention run as one fused kernel (attention flash).",
       keys({{"layers"}}, transformer_keys,
            {{"kv_heads", "heads"},
             {"mlp", "relu"},
             {"norm", "layer_norm"},
             {"positions", "learned"},
             {"attention", "dense"},
             {"flash_block_q", "512"},
             {"flash_block_kv", "512"},
             activation_dtype,
             dropout}),
       {"batch", "length", "d_model", "d_ff", "heads", "d_kv", "vocab", "kv_heads", "q_per_kv"},
       "batch:batch;vocab:model;d_ff:model;heads:model", "tiny-lm", build_transformer_lm,
       kTransformerLmFormulas, nullptr, lm_summary, lm_derived_dimensions, lm_check_sizes, true},
      {ModelKind::encoder_decoder, "encoder_decoder",
       "The paper's encoder-decoder Transformer: one embedding shared by encoder_layers encoder blocks and "
       "decoder_layers decoder blocks (with attention over the encoder); trained on a synthetic copy task.",
       keys({{"encoder_layers"}, {"decoder_layers"}}, transformer_keys, {activation_dtype, dropout}),
       transformer_dims, "batch:batch;vocab:model;d_ff:model;heads:model", "tiny-translation",
       build_encoder_decoder, kEncoderDecoderFormulas, nullptr, encoder_decoder_summary, nullptr, nullptr, false},
      {ModelKind::moe_transformer,
       "moe_transformer",
       "The language model with every feed-forward sublayer a mixture of experts (top-1 routing, at most "
       "ceil(capacity_factor * length / experts) tokens per sequence and expert).",
       keys({{"layers"}}, transformer_keys,
            {{"experts"}, {"capacity_factor", "2"}, activation_dtype, dropout}),
       {"batch", "length", "d_model", "d_ff", "heads", "d_kv", "vocab", "experts"},
       // Mesh-TensorFlow's MoE layout: experts split like the batch, so dispatching tokens is one alltoall.
       "batch:batch;experts:batch;vocab:model;d_ff:model;heads:model",
       "tiny-moe",
       build_moe_transformer,
       kMoeTransformerFormulas,
       moe_check_layout,
       moe_summary,
       nullptr,
       nullptr,
       false},
      {ModelKind::resnet,
       "resnet",
       "A ResNet image classifier (He et al. 2016, torchvision's v1.5 bottleneck): a 7x7 stride-2 stem and "
       "3x3 "
       "max pool, stages of bottleneck blocks (1x1, 3x3, 1x1 with 4x expansion, batch norm and relu), global "
       "average pool and a dense layer to classes; trained on synthetic images labelled by their brightness.",
       {{"stage_blocks", "3,4,6,3"},
        {"width", "64"},
        {"image_size"},
        {"image_channels", "3"},
        {"classes"},
        {"batch"},
        {"batch_norm_span", "all"},
        activation_dtype},
       {"batch", "h", "w", "channels", "filters", "classes", kBatchNormGroupDim},
       "batch:batch",
       "tiny-resnet",
       build_resnet,
       kResNetFormulas,
       nullptr,
       resnet_summary,
       resnet_derived_dimensions,
       image_check_sizes<resnet_halvings>,
       false},
      {ModelKind::unet,
       "unet",
       "A 2D U-Net for segmentation (Ronneberger et al. 2015): levels resolutions of two 3x3 convolutions "
       "with "
       "batch norm and relu, 2x2 max pools down, 2x2 stride-2 up-convolutions and skip connections up, a 1x1 "
       "convolution to per-pixel classes; trained to segment synthetic images by their smoothed first "
       "channel.",
       {{"levels", "4"},
        {"width", "64"},
        {"image_size"},
        {"image_channels", "1"},
        {"classes", "2"},
        {"batch"},
        activation_dtype},
       {"batch", "h", "w", "channels", "filters", "classes"},
       "batch:batch",
       "tiny-unet",
       build_unet,
       kUNetFormulas,
       unet_check_layout,
       unet_summary,
       image_derived_dimensions<unet_halvings>,
       image_check_sizes<unet_halvings>,
       false},
      {ModelKind::bert,
       "bert",
       "BERT pre-training (Devlin et al. 2018; MLPerf's BERT-Large): token, token-type and positional "
       "embeddings, layers post-layer-norm blocks of self-attention and GELU feed-forward with biases, a "
       "masked-LM head at predictions positions per sequence (logits against the tied embedding) and a "
       "next-sentence head on the pooled first token; the loss is the sum of their means.",
       keys({{"layers"}}, transformer_keys, {{"predictions"}, activation_dtype, dropout}),
       {"batch", "length", "d_model", "d_ff", "heads", "d_kv", "vocab", "predictions"},
       "batch:batch;vocab:model;d_ff:model;heads:model",
       "tiny-bert",
       build_bert,
       kBertFormulas,
       nullptr,
       bert_summary,
       nullptr,
       bert_check_sizes,
       false},
  };
  return rows;
}

const ModelKindInfo& model_kind(ModelKind kind) {
  for (const auto& row : model_kinds()) {
    if (row.kind == kind) return row;
  }
  TPUSIM_CHECK(false);  // every ModelKind comes from a row (model_kind_names)
  return model_kinds().front();
}

const NameTable<ModelKind>& model_kind_names() {
  static const NameTable<ModelKind> table = [] {
    std::vector<NameTable<ModelKind>::Entry> entries;
    for (const auto& row : model_kinds()) entries.push_back({row.name, row.kind});
    return NameTable<ModelKind>("model kind", entries);
  }();
  return table;
}

const char* to_string(ModelKind kind) { return model_kind(kind).name.c_str(); }

mtf::LayoutRules default_layout(ModelKind kind, const mtf::MeshShape& mesh) {
  const mtf::LayoutRules paper = mtf::LayoutRules::parse(model_kind(kind).default_layout);
  std::vector<std::pair<std::string, std::string>> rules;
  for (const auto& rule : paper.rules()) {
    if (mesh.index_of(rule.second) >= 0) rules.push_back(rule);
  }
  return mtf::LayoutRules(rules);
}

std::string unknown_dimension_problem(const ModelKindInfo& kind, const std::string& dim) {
  if (std::find(kind.dimensions.begin(), kind.dimensions.end(), dim) != kind.dimensions.end()) return "";
  return fmt::format("a {} has no dimension '{}'{}; its dimensions are {}", kind.name, dim,
                     did_you_mean(dim, kind.dimensions), join(kind.dimensions));
}

std::string describe_model(const ModelConfig& model) { return model_kind(model.kind).summary(model); }

bool trains_on_sequences(ModelKind kind) {
  for (const auto& use : model_kind(kind).keys) {
    if (use.key == "length") return true;
  }
  return false;
}

std::string example_unit(ModelKind kind) {
  if (trains_on_sequences(kind)) return "sequences";
  for (const auto& use : model_kind(kind).keys) {
    if (use.key == "image_size") return "images";
  }
  return "examples";
}

std::optional<DerivedDimension> derived_dimension(const ModelConfig& model, const std::string& dim) {
  const ModelKindInfo& kind = model_kind(model.kind);
  if (!kind.derived_dimensions) return std::nullopt;
  for (const auto& derived : kind.derived_dimensions(model)) {
    if (derived.dim == dim) return derived;
  }
  return std::nullopt;
}

double tokens_per_step(const ModelConfig& model) {
  return trains_on_sequences(model.kind) ? double(model.batch) * double(model.length) : double(model.batch);
}

}  // namespace tpusim::workloads
