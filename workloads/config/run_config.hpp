#pragma once
// The resolved configuration of one run: plain values, every size checked, units in the names. Produced by
// parse_run_config (config_parser.hpp) from YAML; nothing downstream sees YAML.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mesh_tf/device_model.hpp"
#include "mesh_tf/mapping_spec.hpp"
#include "topologies/topology.hpp"

namespace tpusim::workloads {

enum class ModelKind { mlp, transformer_lm, encoder_decoder, moe_transformer };
enum class OptimizerKind { sgd, adam, adafactor };
enum class NumericsMode { full, timing };
enum class ActivationDType { f32, bf16 };

const char* to_string(ModelKind kind);
const char* to_string(OptimizerKind kind);
const char* to_string(NumericsMode mode);
const char* to_string(ActivationDType dtype);
std::uint32_t bytes_per_element(ActivationDType dtype);

struct HardwareConfig {
  topo::Topology topology;
  mtf::DeviceModel device;                                          // per core
  std::map<std::string, std::string> collective_algorithm_by_axis;  // mesh axis -> sim algorithm name
};

struct MeshAxis {
  std::string name;
  int size = 1;
};

struct MeshConfig {
  std::vector<MeshAxis> axes;  // placed on the pod by mtf::MeshMapping as `mapping` says
  mtf::MappingSpec mapping;    // rings (each axis on physical rings if it can), linear or explicit axes
  std::vector<std::pair<std::string, std::string>> layout;  // tensor dim -> mesh axis
  int num_cores() const;
  int axis_size(const std::string& name) const;                   // 1 if absent
  std::string shape_text() const;                                 // "batch:16;model:32"
  std::string layout_text() const;                                // "batch:batch;vocab:model"
  std::string mesh_axis_of(const std::string& tensor_dim) const;  // "" if unsplit
};

struct ModelConfig {
  ModelKind kind = ModelKind::transformer_lm;
  int layers = 1;          // decoder layers (LM, MoE), encoder layers (encoder-decoder), hidden layers (MLP)
  int decoder_layers = 0;  // encoder-decoder only
  std::int64_t d_model = 0;
  std::int64_t d_ff = 0;
  std::int64_t heads = 0;
  std::int64_t d_kv = 0;
  std::int64_t vocab = 0;
  std::int64_t batch = 0;      // sequences (examples for the MLP) per step, whole pod
  std::int64_t length = 0;     // tokens per sequence
  std::int64_t experts = 0;    // MoE only
  double capacity_factor = 0;  // MoE only: expert capacity = factor * tokens per group / experts
  ActivationDType activation_dtype = ActivationDType::bf16;
};

// The most steps one run may have, from a config or from `tpusim run --steps`.
constexpr int kMaxSteps = 100000;

struct TrainingConfig {
  OptimizerKind optimizer = OptimizerKind::adafactor;
  double learning_rate = 0.01;
  NumericsMode numerics = NumericsMode::timing;
  int steps = 1;
  std::uint64_t seed = 1;
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
  // "file:line: key" of keys whose problems may only show when the model is built (layout legality,
  // collective algorithm names), so those errors still point into the config.
  std::map<std::string, std::string> locations;
  std::string where(const std::string& key) const;  // locations[key], or source + ": " + key
};

}  // namespace tpusim::workloads
