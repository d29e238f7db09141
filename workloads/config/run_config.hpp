#pragma once
// The resolved configuration of one run: plain values, every size checked, units in the names. Produced by
// parse_run_config (config_parser.hpp) from YAML, key by key as the schema (config_schema.hpp) says; nothing
// downstream sees YAML.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mesh_tf/collective_backend.hpp"
#include "mesh_tf/device_model.hpp"
#include "mesh_tf/dimension.hpp"
#include "mesh_tf/fusion.hpp"
#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/mapping_spec.hpp"
#include "mesh_tf/mesh_shape.hpp"
#include "mesh_tf/optimizer.hpp"
#include "mesh_tf/overlap_policy.hpp"
#include "mesh_tf/pipeline_schedule.hpp"
#include "mesh_tf/rematerialization.hpp"
#include "mesh_tf/weight_sharding.hpp"
#include "topologies/support/name_table.hpp"
#include "topologies/topology.hpp"
#include "workloads/config/transformer_choices.hpp"
#include "workloads/fidelity/calibration.hpp"

namespace tpusim::workloads {

// Each kind is one row of the model-kind registry (models/model_kinds.hpp), which holds its name, keys,
// builder and closed forms.
enum class ModelKind { mlp, transformer_lm, encoder_decoder, moe_transformer, resnet, unet, bert };
// The engine's optimizers (mesh_tf/optimizer.hpp), as configs name them.
using OptimizerKind = mtf::OptimizerConfig::Kind;
enum class NumericsMode { full, timing };

const char* to_string(ModelKind kind);  // the registry row's name
const char* to_string(OptimizerKind kind);
const char* to_string(NumericsMode mode);
// The names configs write, in the order messages list them.
const NameTable<OptimizerKind>& optimizer_kinds();  // sgd, adam, adafactor, momentum, lars, lamb
const NameTable<NumericsMode>& numerics_modes();    // timing, full
// A dtype as configs write it and results report it: the shortest of its names in mtf::dtypes() ("bf16",
// "f32"), which also parses them.
std::string dtype_name(mtf::DType dtype);

struct HardwareConfig {
  topo::Topology topology;
  mtf::DeviceModel device;                                          // per core
  std::map<std::string, std::string> collective_algorithm_by_axis;  // mesh axis -> sim algorithm name
  std::string pod_allreduce = "";  // allreduce algorithm for sums over the whole pod (execution.hpp); "": none
  mtf::CollectiveBackend collective_backend = mtf::CollectiveBackend::mesh_tf_tpu;
  mtf::OverlapPolicy overlap = mtf::OverlapPolicy::dependencies;
  mtf::FusionPolicy fusion = mtf::FusionPolicy::xla;
  mtf::RematerializationPolicy rematerialization = mtf::RematerializationPolicy::none;
  // Under rematerialization `layers`, what each layer holds (config/layer_checkpoints.hpp): the row's name
  // and its policy; for `custom`, MaxText's name of each value held and where ("device" or "offload").
  std::string layer_checkpoint = "full";
  std::map<std::string, std::string> layer_checkpoint_names;
  mtf::LayerCheckpointPolicy layer_checkpoint_policy;
  std::uint64_t allreduce_combine_bytes = 0;  // mesh_tf/allreduce_combiner.hpp; 0: none
  // A calibration profile (workloads/fidelity/calibration.hpp) the step is timed under, beside the
  // mechanisms alone; none by default.
  std::optional<CalibrationProfile> calibration = std::nullopt;
};

struct MeshConfig {
  mtf::MeshShape shape;      // placed on the pod by mtf::MeshMapping as `mapping` says
  mtf::MappingSpec mapping;  // rings (each axis on physical rings if it can), linear or explicit axes
  mtf::LayoutRules layout;   // tensor dim -> mesh axis
  int num_cores() const { return shape.size(); }
  std::string shape_text() const { return shape.to_string(); }    // "batch:16;model:32"
  std::string layout_text() const { return layout.to_string(); }  // "batch:batch;vocab:model"
};

// Pipeline parallelism (training.pipeline_stages, training.microbatches, training.pipeline_schedule): the
// layer stack cut into `stages` stages of layers/stages layers, each stage on its part of the mesh axis the
// layout rule `stage:<axis>` names, and the batch cut into `microbatches`
// (workloads/models/pipelined_lm.cpp).
struct PipelineConfig {
  int stages = 1;
  int microbatches = 1;
  mtf::PipelineSchedule schedule = mtf::PipelineSchedule::gpipe;
  bool on() const { return stages > 1 || microbatches > 1; }
};

struct ModelConfig {
  ModelKind kind{};        // set from model.kind by the reader
  int layers = 1;          // decoder layers (LM, MoE), encoder layers (encoder-decoder), hidden layers (MLP)
  int decoder_layers = 0;  // encoder-decoder only
  std::int64_t d_model = 0;
  std::int64_t d_ff = 0;
  std::int64_t heads = 0;
  std::int64_t d_kv = 0;
  std::int64_t vocab = 0;
  std::int64_t batch = 0;        // sequences (examples for the MLP, images) per step, whole pod
  std::int64_t length = 0;       // tokens per sequence
  std::int64_t predictions = 0;  // bert only: masked positions per sequence (max_predictions_per_seq)
  std::int64_t experts = 0;      // MoE only
  double capacity_factor = 0;    // MoE only: expert capacity = factor * tokens per group / experts
  // Image models (resnet, unet): square images of image_size x image_size pixels and image_channels values.
  std::int64_t image_size = 0;
  std::int64_t image_channels = 0;
  std::int64_t classes = 0;       // per image (resnet) or per pixel (unet)
  std::int64_t width = 0;         // channels of the first stage (resnet) or level (unet)
  std::vector<int> stage_blocks;  // resnet: bottleneck blocks of each stage
  // resnet: images whose batch-norm statistics are shared (MLPerf's model_bn_span); 0: the whole batch.
  std::int64_t batch_norm_span = 0;
  int levels = 0;  // unet: resolutions, each half the size of the one above
  mtf::DType activation_dtype = mtf::DType::bfloat16;
  double dropout = 0;  // Transformer kinds: the rate of every dropout (transformer_layers.hpp); 0 = none
  // transformer_lm's blocks (config/transformer_choices.hpp): the paper's by default.
  FeedForwardKind mlp = FeedForwardKind::relu;
  NormKind norm = NormKind::layer_norm;
  PositionKind positions = PositionKind::learned;
  AttentionKind attention = AttentionKind::dense;
  // Key and value heads (grouped-query attention: heads / kv_heads query heads share each); 0: as many as heads.
  std::int64_t kv_heads = 0;
  std::int64_t flash_block_q = 512, flash_block_kv = 512;  // the fused kernel's blocks (attention: flash)
  std::int64_t key_value_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  // How the model is built split into pipeline stages; set by the training.pipeline_* keys (the model is
  // built pipelined, so its builder reads it here). Off by default.
  PipelineConfig pipeline;
};

// The most steps one run may have, from a config or from `tpusim run --steps`.
constexpr int kMaxSteps = 100000;

struct TrainingConfig {
  OptimizerKind optimizer = OptimizerKind::adafactor;
  double learning_rate = 0.01;
  NumericsMode numerics = NumericsMode::timing;
  int steps = 1;
  std::uint64_t seed = 1;
  // Weights sharded over the data-parallel axis (mesh_tf/weight_sharding.hpp): update, Xu et al. 2020's
  // sharded update; full, ZeRO-3/FSDP's weights stored sharded and gathered before each use.
  mtf::WeightShardingMode weight_sharding = mtf::WeightShardingMode::none;
  std::string output_dir;  // results/<name> unless given
};

struct RunConfig {
  std::string name;         // from the config, else the file or preset name
  std::string description;  // free text
  std::string source;       // file path, or "preset <name>"
  std::string yaml_text;    // the text it was read from, recorded in summary.json
  HardwareConfig hardware;
  MeshConfig mesh;
  ModelConfig model;
  TrainingConfig training;
  // "file:line: key" of every key read (or "file:line: section (default key value)"), so problems that only
  // show when the model is built (layout legality, collective algorithm names) still point into the config.
  std::map<std::string, std::string> locations;
  std::string where(const std::string& key) const;  // locations[key], or source + ": " + key
  // What the config says that it probably does not mean, one line each ("file:line: key: ..."); the
  // commands print them on stderr as warnings.
  std::vector<std::string> warnings;
};

}  // namespace tpusim::workloads
