#pragma once
// YAML config -> RunConfig. Every key is checked against the schema below; unknown keys, keys given twice,
// wrong types, figures outside their plausible range, sizes that do not split evenly over their mesh axis and
// a mesh that does not cover the topology are InputErrors "file:line: dotted.key: problem". A config file is
// at most 16 MiB (topologies/support/text_file.hpp).
//
//   name: lm-s5                      # optional, default: the file name without .yaml
//   description: text                # optional
//   hardware:
//     topology: tpu-v2-pod           # preset or spec (tpusim topo describe), default tpu-v2-pod; at most
//                                    # what simulation_memory.hpp allows (4 GiB of simulator state)
//     device: tpu-v2-core            # mtf::DeviceModel preset, default from the topology name
//     peak_flops_per_core: 22.5T     # overrides of the device, per core: 1 MFLOP/s to 1 EFLOP/s
//     hbm_per_core: 8GiB             #   1 KiB to 1 PiB
//     hbm_bandwidth_per_core: 350GBps  # 1 kB/s to 1 PB/s
//     inter_chip_bandwidth: 62GBps   # overrides of the topology's links (one direction): 1 kB/s to 1 PB/s
//     inter_chip_latency: 1us        #   0 to 1 s
//     intra_chip_bandwidth: 350GBps  #   1 kB/s to 1 PB/s
//     intra_chip_latency: 0.5us      #   0 to 1 s
//     (these ranges are sanity limits, far wider than any real device: topologies/support/units.hpp)
//     collectives: {batch: bidir_ring}  # simulator algorithm per mesh axis (default: the engine's)
//   mesh:
//     shape: batch:16;model:32       # required; must have as many cores as the topology
//     mapping: rings                 # where the mesh processors run (mtf::MappingSpec): rings (default: each
//                                    # axis on physically connected rings where sizes allow), linear
//                                    # (processor i is core i), or axes per mesh axis: model=core+x;batch=y
//     layout: batch:batch;vocab:model  # tensor dim -> mesh axis; default: the paper's rules for the mesh
//   model:
//     kind: transformer_lm           # mlp | transformer_lm | encoder_decoder | moe_transformer
//     layers, encoder_layers, decoder_layers, d_model, d_ff, heads, d_kv, vocab, batch, length, experts,
//     capacity_factor, activation_dtype (bf16 | f32): the keys the kind uses (model_keys())
//   training:
//     optimizer: adafactor           # sgd | adam | adafactor
//     learning_rate: 0.01
//     numerics: timing               # timing | full
//     steps: 1                       # 1 to 100000 (kMaxSteps), like tpusim run --steps
//     seed: 1
//     output: results/lm-s5          # default results/<name>
#include <string>
#include <vector>

#include "workloads/config/model_section.hpp"  // model_keys, model_dimension_names
#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

class ConfigNode;  // config_node.hpp

// `file` names the source in messages (a path, or "preset:NAME").
RunConfig parse_run_config(const std::string& yaml_text, const std::string& file);
RunConfig load_run_config_file(const std::string& path);  // InputError if unreadable
// The same from a tree already read (a sweep point: a base config with values substituted, which the root's
// origins locate); `yaml_text` is what RunConfig records.
RunConfig parse_run_config(const ConfigNode& root, const std::string& yaml_text);

// Every dotted key of the schema above ("mesh.shape", "model.d_ff", "hardware", ...); is_config_key also
// accepts hardware.collectives.<mesh axis>.
std::vector<std::string> config_keys();
bool is_config_key(const std::string& dotted_key);

// The paper's layout for a mesh: batch -> "batch", vocab, d_ff, heads -> "model" (MoE: experts -> "batch"),
// for the axes the mesh has.
std::vector<std::pair<std::string, std::string>> default_layout(ModelKind kind,
                                                                const std::vector<MeshAxis>& axes);

}  // namespace tpusim::workloads
