#include "workloads/models/model_section.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mesh_tf/graph.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/text.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/config/scaled_size.hpp"
#include "workloads/models/image_layers.hpp"
#include "workloads/models/model_kinds.hpp"

namespace tpusim::workloads {
namespace {

// The closed forms count parameters in 64-bit integers: bounding the layer count and every tensor's elements
// (whole pod, its logical size: nothing that large is materialised; lowering bounds each core's slice) keeps
// those sums far from overflow, and keeps the layer count an int. lm-s5's largest tensor, [batch, length,
// d_ff], has 1.7e10 elements; at 16 sequences per batch core on 65,536 cores (4096 along batch), 4.4e12.
constexpr std::int64_t kMaxLayers = 1000;
constexpr double kMaxTensorElements = double(mtf::Graph::kMaxTensorElements);

// A size key sizes the tensor dimension of its name, so it may grow with the mesh axis that splits it
// (config/scaled_size.hpp).
ModelKey size_key(std::string name, std::int64_t ModelConfig::*field, std::string doc) {
  return {std::move(name),
          "whole number, or {per: mesh axis, value: N} for N per processor along that axis",
          "at least 1",
          std::move(doc),
          [field](const ConfigNode& value, ModelConfig& m) { m.*field = value.positive_integer(); },
          [field](const ModelConfig& m) { return nlohmann::json(m.*field); },
          [field](const ModelConfig& m) { return m.*field; }};
}

ModelKey layers_key(std::string name, int ModelConfig::*field, std::string doc) {
  return {std::move(name),
          "whole number",
          fmt::format("1 to {}", kMaxLayers),
          std::move(doc),
          [field](const ConfigNode& value, ModelConfig& m) {
            const std::int64_t layers = value.positive_integer();
            if (layers > kMaxLayers)
              value.fail(fmt::format("{} is more than the {} layers a model may have", layers, kMaxLayers));
            m.*field = static_cast<int>(layers);
          },
          [field](const ModelConfig& m) { return nlohmann::json(m.*field); },
          nullptr};
}

// A count that sizes no tensor dimension of its own name (image_size sizes h and w at the top of the model).
ModelKey count_key(std::string name, std::int64_t ModelConfig::*field, std::string doc) {
  return {std::move(name),
          "whole number",
          "at least 1",
          std::move(doc),
          [field](const ConfigNode& value, ModelConfig& m) { m.*field = value.positive_integer(); },
          [field](const ModelConfig& m) { return nlohmann::json(m.*field); },
          nullptr};
}

// A choice among the names of `table`, such as model.mlp.
template <class Choice>
ModelKey choice_key(std::string name, const NameTable<Choice>& table, Choice ModelConfig::*field,
                    std::string doc) {
  return {std::move(name),
          "one of " + join(table.names()),
          "",
          std::move(doc),
          [&table, field](const ConfigNode& value, ModelConfig& m) { m.*field = value.choice(table); },
          [&table, field](const ModelConfig& m) { return nlohmann::json(table.name_of(m.*field)); },
          nullptr};
}

// The blocks of each ResNet stage: a YAML list [3, 4, 6, 3] or the text "3,4,6,3" (which the resolved config
// reports, so that it reads back the same).
constexpr std::size_t kMaxStages = 8;
void read_stage_blocks(const ConfigNode& value, ModelConfig& m) {
  std::vector<ConfigNode> items;
  if (value.yaml().IsSequence()) {
    items = value.items("blocks per stage");
  } else {
    for (std::string part : split(value.scalar(), ',')) {
      part.erase(std::remove(part.begin(), part.end(), ' '), part.end());
      items.push_back(value.with_scalar(part));
    }
  }
  if (items.size() > kMaxStages)
    value.fail(fmt::format("{} stages is more than the {} a ResNet may have", items.size(), kMaxStages));
  m.stage_blocks.clear();
  std::int64_t total = 0;
  for (const auto& item : items) {
    const std::int64_t blocks = item.positive_integer();
    total += std::min<std::int64_t>(blocks, kMaxLayers + 1);
    if (total > kMaxLayers) value.fail(fmt::format("more than the {} blocks a model may have", kMaxLayers));
    m.stage_blocks.push_back(static_cast<int>(blocks));
  }
}

void check_fits_in_counters(const ConfigNode& section, const ModelConfig& model) {
  for (const auto& [tensor, elements] : model_kind(model.kind).formulas.largest_tensors(model)) {
    if (elements > kMaxTensorElements) {
      section.fail(
          fmt::format("its tensor {} would have {:.3g} elements, more than the {:.3g} a tensor may have "
                      "on the whole pod",
                      tensor, elements, kMaxTensorElements));
    }
  }
}

// The whole section, since its keys depend on the kind.
void read_model_section(const ConfigNode& section, ConfigReading& r) {
  // Without a kind, a misspelt "kind" is best reported as an unknown key among all the model keys.
  if (!section.has("kind")) section.expect_map(all_model_keys());
  const ModelKindInfo& kind = model_kind(section.child("kind").choice(model_kind_names()));
  std::vector<std::string> allowed = {"kind"};
  for (const auto& use : kind.keys) allowed.push_back(use.key);
  section.expect_map(allowed);
  ModelConfig model;
  model.kind = kind.kind;
  for (const auto& use : kind.keys) {
    const ModelKey& key = model_key(use.key);
    if (const auto value = section.optional_child(use.key)) {
      if (key.dimension_size && is_scaled_size(*value)) {
        key.read(value->with_scalar(std::to_string(scaled_size(*value, r.config.mesh.shape))), model);
      } else {
        key.read(*value, model);
      }
      r.config.locations["model." + use.key] = value->where();
    } else if (!use.default_value.empty()) {
      key.read(ConfigNode::schema_default(use.default_value, "model." + use.key), model);
    } else {
      section.child(use.key);  // "missing key"
    }
  }
  if (kind.check_sizes) {
    const ModelSizeProblem problem = kind.check_sizes(model);
    if (!problem.problem.empty()) {
      const std::optional<ConfigNode> value = section.optional_child(problem.key);
      (value ? *value : section).fail(problem.problem);
    }
  }
  check_fits_in_counters(section, model);
  r.config.model = model;
}

}  // namespace

const std::vector<ModelKey>& model_key_table() {
  static const std::vector<ModelKey> rows = {
      layers_key("layers", &ModelConfig::layers,
                 "Blocks of the model: decoder blocks of a language model, hidden blocks of the MLP."),
      layers_key("encoder_layers", &ModelConfig::layers, "Encoder blocks of the encoder-decoder."),
      layers_key("decoder_layers", &ModelConfig::decoder_layers, "Decoder blocks of the encoder-decoder."),
      size_key("d_model", &ModelConfig::d_model, "Model width: the size of the tensor dimension d_model."),
      size_key("d_ff", &ModelConfig::d_ff,
               "Hidden size of the feed-forward sublayers (of each expert in MoE)."),
      size_key("heads", &ModelConfig::heads, "Attention heads."),
      size_key("d_kv", &ModelConfig::d_kv, "Size of each attention head's keys and values."),
      size_key("vocab", &ModelConfig::vocab,
               "Vocabulary size: the embedding and the softmax are [vocab, d_model]."),
      size_key("batch", &ModelConfig::batch,
               "Sequences per step on the whole pod (examples for the MLP, images for the image models)."),
      size_key("length", &ModelConfig::length, "Tokens per sequence."),
      size_key("predictions", &ModelConfig::predictions,
               "Masked tokens BERT predicts in each sequence (max_predictions_per_seq of BERT's "
               "run_pretraining.py; MLPerf's BERT-Large uses 76): the size of the dimension predictions. At "
               "most length."),
      size_key("experts", &ModelConfig::experts, "Experts of each mixture-of-experts layer."),
      {"capacity_factor", "number", "0.01 to 1000",
       "Sets the tokens one sequence may send to one expert: ceil(capacity_factor * length / experts).",
       [](const ConfigNode& value, ModelConfig& m) {
         // Sanity limits: Mesh-TensorFlow's and GShard's factors are 1 to 4; far beyond, the capacity
         // stops meaning anything and overflows the sizes.
         m.capacity_factor = value.number();
         if (!(m.capacity_factor >= 0.01 && m.capacity_factor <= 1000))
           value.fail("is not a plausible capacity factor: expected 0.01 to 1000");
       },
       [](const ModelConfig& m) { return nlohmann::json(m.capacity_factor); }, nullptr},
      {"dropout", "number", "0, or 2^-24 (6e-8) to less than 1",
       "Dropout rate of the Transformer kinds, at every place tensor2tensor's mtf_transformer_base (0.1 for "
       "attention_dropout, relu_dropout and layer_prepostprocess_dropout) and BERT's modeling.py "
       "(hidden_dropout_prob, attention_probs_dropout_prob) apply one; each costs a random mask, whose "
       "ThreeFry bits take about 65 vector operations per element (mesh_tf/random_bits.hpp), and a multiply, "
       "and the mask is kept for the backward pass. 0 builds no dropout.",
       [](const ConfigNode& value, ModelConfig& m) {
         // A rate below 2^-24 keeps every element of a float32 mask: TensorFlow's float32 random_uniform has
         // 2^23 values in [0, 1).
         m.dropout = value.number();
         if (!(m.dropout == 0 || (m.dropout >= 0x1p-24 && m.dropout < 1)))
           value.fail("must be 0, or from 2^-24 (6e-8) to less than 1");
       },
       [](const ModelConfig& m) { return nlohmann::json(m.dropout); }, nullptr},
      {"stage_blocks", "list of whole numbers, such as [3, 4, 6, 3] or \"3,4,6,3\"",
       fmt::format("1 to {} stages, {} blocks in all", kMaxStages, kMaxLayers),
       "Bottleneck blocks of each ResNet stage; stage s has width * 2^s filters and 4x as many channels "
       "(3,4,6,3 is ResNet-50, 3,4,23,3 ResNet-101, 3,8,36,3 ResNet-152).",
       read_stage_blocks, [](const ModelConfig& m) { return nlohmann::json(join_blocks(m.stage_blocks)); },
       nullptr},
      {"batch_norm_span", "whole number, or all", "at least 1, dividing batch",
       "Images whose batch-norm statistics are computed together (MLPerf's model_bn_span; Ying et al. 2018, "
       "arXiv 1811.06992, distributed batch norm): all, the whole batch, as one large batch would be; or N, "
       "so that each group of N images has statistics of its own. The model then holds its images as "
       "[batch, bn_images], batch counting the groups of bn_images images: a layout that keeps bn_images on "
       "one core needs no collective for the statistics, one that splits it over a mesh axis allreduces them "
       "over that axis only (MLPerf's groups of 8 cores: mesh batch:256;bn:8, layout "
       "batch:batch;bn_images:bn).",
       [](const ConfigNode& value, ModelConfig& m) {
         m.batch_norm_span = value.scalar() == "all" ? 0 : value.positive_integer();
       },
       [](const ModelConfig& m) {
         return m.batch_norm_span == 0 ? nlohmann::json("all") : nlohmann::json(m.batch_norm_span);
       },
       nullptr},
      {"levels", "whole number", "1 to 16",
       "Resolutions of the U-Net, each half the side of the one above (Ronneberger et al. have 5).",
       [](const ConfigNode& value, ModelConfig& m) {
         const std::int64_t levels = value.positive_integer();
         if (levels > 16) value.fail(fmt::format("{} levels is more than the 16 a U-Net may have", levels));
         m.levels = static_cast<int>(levels);
       },
       [](const ModelConfig& m) { return nlohmann::json(m.levels); }, nullptr},
      count_key("width", &ModelConfig::width,
                "Channels of the first stage or level; each later one doubles them. It sizes the dimensions "
                "channels and filters, so a layout splits them when it splits the width."),
      count_key("image_size", &ModelConfig::image_size,
                "Side of the square input images in pixels: the size of h and w at the top of the model. It "
                "must survive the model's halvings (a multiple of 32 for ResNet-50)."),
      count_key("image_channels", &ModelConfig::image_channels,
                "Values per pixel of the input images (3 for RGB)."),
      size_key("classes", &ModelConfig::classes,
               "Classes of each image (resnet) or of each pixel (unet): the size of the dimension classes."),
      {"kv_heads", "whole number, or heads", "at least 1, dividing heads",
       "Key and value heads of the attention: heads (the default) for multi-head attention, fewer for "
       "grouped-query attention (Ainslie et al. 2023; Llama 2 70B has 8 for 64 heads), 1 for multi-query "
       "attention (Shazeer 2019; PaLM). With fewer than heads, k and v are [kv_heads, d_kv] and each of their "
       "heads serves heads / kv_heads query heads: the dimensions kv_heads and q_per_kv, which a layout may "
       "split (heads is then no dimension of the model).",
       [](const ConfigNode& value, ModelConfig& m) {
         m.kv_heads = value.scalar() == "heads" ? 0 : value.positive_integer();
       },
       [](const ModelConfig& m) {
         return m.kv_heads == 0 ? nlohmann::json("heads") : nlohmann::json(m.kv_heads);
       },
       [](const ModelConfig& m) { return m.key_value_heads(); }},
      choice_key("mlp", feed_forward_kinds(), &ModelConfig::mlp,
                 "The feed-forward sublayer: relu(x in) out, the paper's; gelu(x in) out (GPT-3, BERT); or "
                 "swiglu, (silu(x gate) * x up) out (Shazeer 2020; Llama, PaLM, MaxText's default decoder), "
                 "three [d_model, d_ff] matrices instead of two."),
      choice_key("norm", norm_kinds(), &ModelConfig::norm,
                 "The normalisation before each sublayer and at the end: layer_norm, (x - mean) / std * scale, "
                 "the paper's; or rms_norm, x / rms(x) * scale (Zhang and Sennrich 2019; Llama, MaxText)."),
      choice_key("positions", position_kinds(), &ModelConfig::positions,
                 "How positions enter: learned, a [length, d_model] embedding added to the tokens', the "
                 "paper's; or rotary, q and k rotated by angles of their positions (Su et al. 2021, base "
                 "10000, the halves of d_kv paired as GPT-NeoX and Llama pair them), with no positional "
                 "embedding. rotary needs an even d_kv."),
      choice_key("attention", attention_kinds(), &ModelConfig::attention,
                 "How the attention runs: dense, its logits, softmax and context as separate ops that XLA's "
                 "fusion groups, the logits written to HBM; or flash, one fused kernel per pass "
                 "(FlashAttention as the Pallas TPU kernels MaxText runs with attention: flash; "
                 "mesh_tf/attention_kernel.hpp), in blocks of flash_block_q queries and flash_block_kv keys: "
                 "no logits in HBM, the causal mask made on the core, blocks above the diagonal skipped, the "
                 "backward pass computing the logits again. The same numbers either way. flash needs the "
                 "lengths and d_kv unsplit."),
      count_key("flash_block_q", &ModelConfig::flash_block_q,
                "Queries per block of the fused attention kernel (attention: flash): MaxText's sa_block_q, "
                "512 by default."),
      count_key("flash_block_kv", &ModelConfig::flash_block_kv,
                "Keys per block of the fused attention kernel (attention: flash): MaxText's sa_block_kv, 512 "
                "by default."),
      {"activation_dtype", "one of " + join(mtf::dtypes().names()), "",
       "Element type of activations in HBM and on the wire; every value is computed in fp32.",
       [](const ConfigNode& value, ModelConfig& m) { m.activation_dtype = value.choice(mtf::dtypes()); },
       [](const ModelConfig& m) { return nlohmann::json(dtype_name(m.activation_dtype)); }, nullptr},
  };
  return rows;
}

const ModelKey& model_key(const std::string& name) {
  for (const auto& key : model_key_table()) {
    if (key.name == name) return key;
  }
  TPUSIM_CHECK(false);  // a kind's row names a key that has no row
  return model_key_table().front();
}

std::vector<std::string> all_model_keys() {
  std::vector<std::string> keys = {"kind"};
  for (const auto& kind : model_kinds()) {
    for (const auto& use : kind.keys) {
      if (std::find(keys.begin(), keys.end(), use.key) == keys.end()) keys.push_back(use.key);
    }
  }
  return keys;
}

std::int64_t model_dimension_size(const ModelConfig& model, const std::string& dim) {
  // The pipelined LM (models/pipelined_lm.hpp) has a `stage` dim of one entry per stage, and its `batch` dim
  // is one microbatch's.
  if (dim == "stage") return model.pipeline.stages;
  if (dim == "batch" && model.pipeline.microbatches > 1) return model.batch / model.pipeline.microbatches;
  if (const auto derived = derived_dimension(model, dim)) return derived->smallest;
  for (const auto& key : model_key_table()) {
    if (key.name == dim && key.dimension_size) return key.dimension_size(model);
  }
  return 1;
}

std::vector<ConfigKey> model_keys() {
  return {
      ConfigKey("model.kind", "one of " + join(model_kind_names().names()),
                "The model to train. Its kind decides the other model keys (model kinds below); every tensor "
                "of the model has at most " +
                    fmt::format("{:.3g}", kMaxTensorElements) + " elements on the whole pod, and at most " +
                    fmt::format("{:.3g}", double(mtf::Graph::kMaxSliceElements)) +
                    " in one core's slice of it.")
          .required()
          .needs({"mesh.shape"})  // for sizes given per mesh axis
          .reads_section(read_model_section, all_model_keys())
          .reports([](const RunConfig& c) { return to_string(c.model.kind); }),
  };
}

}  // namespace tpusim::workloads
