#include "workloads/config/config_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <sstream>

#include "mesh_tf/mesh_mapping.hpp"
#include "sim/algorithm_registry.hpp"
#include "topologies/presets.hpp"
#include "topologies/simulation_memory.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text_file.hpp"
#include "topologies/support/units.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/config/model_section.hpp"
#include "workloads/model_formulas.hpp"

namespace tpusim::workloads {
namespace {

const std::vector<std::string> kRootKeys = {"name", "description", "hardware", "mesh", "model", "training"};
const std::vector<std::string> kHardwareKeys = {"topology",
                                                "device",
                                                "peak_flops_per_core",
                                                "hbm_per_core",
                                                "hbm_bandwidth_per_core",
                                                "inter_chip_bandwidth",
                                                "inter_chip_latency",
                                                "intra_chip_bandwidth",
                                                "intra_chip_latency",
                                                "collectives"};
const std::vector<std::string> kMeshKeys = {"shape", "mapping", "layout"};
const std::vector<std::string> kTrainingKeys = {"optimizer", "learning_rate", "numerics",
                                                "steps",     "seed",          "output"};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) parts.push_back(part);
  return parts;
}

std::string stem(const std::string& path) {
  std::string name =
      path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (name.rfind("preset:", 0) == 0) name = name.substr(7);
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

bool is_identifier(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// "batch:16;model:32". No mesh has more cores than the largest pod, which keeps every product of sizes an
// int.
std::vector<MeshAxis> parse_mesh_shape(const ConfigNode& node) {
  const std::string text = node.scalar();
  std::vector<MeshAxis> axes;
  std::int64_t cores = 1;
  for (const auto& part : split(text, ';')) {
    const auto colon = part.find(':');
    const std::string name = part.substr(0, colon);
    const std::string size_text = colon == std::string::npos ? "" : part.substr(colon + 1);
    bool valid = is_identifier(name);
    std::int64_t size = 0;
    try {
      if (valid) size = parse_whole_number(size_text, 1, std::numeric_limits<std::int64_t>::max());
    } catch (const InputError&) {
      valid = false;
    }
    if (!valid) {
      node.fail(
          fmt::format("'{}' is not a mesh shape: expected name:size pairs separated by ';', such as "
                      "batch:16;model:32",
                      text));
    }
    for (const auto& axis : axes) {
      if (axis.name == name) node.fail(fmt::format("mesh axis '{}' appears twice in '{}'", name, text));
    }
    if (size > topo::kMaxCores / cores) {
      node.fail(fmt::format("'{}' has more cores than the largest topology ({} chips of {} cores)", text,
                            topo::kMaxChips, topo::kMaxCoresPerChip));
    }
    cores *= size;
    axes.push_back({name, static_cast<int>(size)});
  }
  if (axes.empty()) node.fail("the mesh shape is empty; expected name:size pairs such as batch:16;model:32");
  return axes;
}

// "rings", "linear" or "model=core+x;batch=y"; an explicit assignment is checked against the mesh and the
// topology here, so its errors point at this line.
mtf::MappingSpec parse_mapping(const ConfigNode& node, const std::vector<MeshAxis>& axes,
                               const topo::Topology& topology) {
  const std::string text = node.scalar();
  try {
    const mtf::MappingSpec spec = mtf::MappingSpec::parse(text);
    if (spec.kind() == mtf::MappingSpec::Kind::axes) {
      std::vector<mtf::Dimension> dims;
      for (const auto& axis : axes) dims.emplace_back(axis.name, axis.size);
      mtf::MeshMapping(mtf::MeshShape(mtf::Shape(dims)), topology, spec);
    }
    return spec;
  } catch (const InputError& error) {
    node.fail(error.what());
  }
}

std::vector<std::pair<std::string, std::string>> parse_layout(const ConfigNode& node, ModelKind kind,
                                                              const std::vector<MeshAxis>& axes) {
  const std::string text = node.scalar();
  const auto dims = model_dimension_names(kind);
  std::vector<std::string> axis_names;
  for (const auto& axis : axes) axis_names.push_back(axis.name);
  std::vector<std::pair<std::string, std::string>> rules;
  for (const auto& part : split(text, ';')) {
    const auto colon = part.find(':');
    if (colon == std::string::npos) {
      node.fail(
          fmt::format("'{}' is not a layout: expected tensor-dim:mesh-axis pairs separated by ';', such as "
                      "batch:batch;d_ff:model",
                      text));
    }
    const std::string dim = part.substr(0, colon), axis = part.substr(colon + 1);
    bool known_dim = false, known_axis = false;
    for (const auto& name : dims) known_dim = known_dim || name == dim;
    for (const auto& name : axis_names) known_axis = known_axis || name == axis;
    if (!known_dim) {
      node.fail(fmt::format("a {} has no dimension '{}'{}; its dimensions are {}", to_string(kind), dim,
                            did_you_mean(dim, dims), join(dims)));
    }
    if (!known_axis) {
      node.fail(fmt::format("'{}' is not an axis of the mesh{}; the mesh axes are {}", axis,
                            did_you_mean(axis, axis_names), join(axis_names)));
    }
    for (const auto& rule : rules) {
      if (rule.first == dim) node.fail(fmt::format("tensor dimension '{}' is laid out twice", dim));
    }
    rules.emplace_back(dim, axis);
  }
  return rules;
}

void check_splits(const ConfigNode& model_node, const ModelConfig& model, const MeshConfig& mesh,
                  const ConfigNode* layout_node) {
  for (const auto& [dim, axis] : mesh.layout) {
    const std::int64_t size = model_dimension_size(model, dim);
    const int parts = mesh.axis_size(axis);
    if (size % parts != 0) {
      model_node
          .child(dim)  // each tensor dimension has the key of its size
          .fail(fmt::format("{} does not split evenly over mesh axis '{}' of size {} (layout rule {}:{})",
                            size, axis, parts, dim, axis));
    }
  }
  if (model.kind == ModelKind::moe_transformer) {
    const std::string experts_axis = mesh.mesh_axis_of("experts");
    if (!experts_axis.empty() && experts_axis == mesh.mesh_axis_of("d_ff")) {
      const std::string problem = fmt::format(
          "experts and d_ff are both laid out on mesh axis '{}', but the expert weights [experts, d_model, "
          "d_ff] "
          "cannot split two dimensions over one mesh axis",
          experts_axis);
      if (layout_node) layout_node->fail(problem);
      model_node.fail(problem);
    }
  }
}

HardwareConfig parse_hardware(const ConfigNode& root) {
  std::optional<ConfigNode> node = root.optional_child("hardware");
  if (node) node->expect_map(kHardwareKeys);
  auto get = [&](const char* key) { return node ? node->optional_child(key) : std::nullopt; };

  std::string spec = "tpu-v2-pod";
  std::optional<topo::Topology> topology;
  if (auto topo_node = get("topology")) {
    spec = topo_node->scalar();
    try {
      topology = topo::topology_from_spec(spec);
      topo::require_simulation_fits(*topology);
    } catch (const InputError& error) {
      topo_node->fail(error.what());
    }
  } else {
    topology = topo::topology_from_spec(spec);
  }
  double inter_bw = topology->inter_chip().bandwidth_Bps(), inter_lat = topology->inter_chip().latency_s();
  double intra_bw = topology->intra_chip().bandwidth_Bps(), intra_lat = topology->intra_chip().latency_s();
  if (auto n = get("inter_chip_bandwidth")) inter_bw = n->bandwidth_Bps();
  if (auto n = get("inter_chip_latency")) inter_lat = n->latency_s();
  if (auto n = get("intra_chip_bandwidth")) intra_bw = n->bandwidth_Bps();
  if (auto n = get("intra_chip_latency")) intra_lat = n->latency_s();
  topology =
      topology->with_links(topo::LinkParams(inter_bw, inter_lat), topo::LinkParams(intra_bw, intra_lat));

  const auto device_names = mtf::DeviceModel::preset_names();
  mtf::DeviceModel device =
      mtf::DeviceModel::preset(topology->name().rfind("tpu-v3", 0) == 0 ? "tpu-v3-core" : "tpu-v2-core");
  if (auto n = get("device")) device = mtf::DeviceModel::preset(n->one_of(device_names));
  double peak_flops = device.peak_flops(), hbm_bandwidth_Bps = device.hbm_bandwidth_Bps();
  std::uint64_t hbm_bytes = device.hbm_bytes();
  if (auto n = get("peak_flops_per_core")) peak_flops = n->flops();
  if (auto n = get("hbm_per_core")) hbm_bytes = n->memory_bytes();
  if (auto n = get("hbm_bandwidth_per_core")) hbm_bandwidth_Bps = n->bandwidth_Bps();
  device = mtf::DeviceModel(device.name(), peak_flops, hbm_bandwidth_Bps, hbm_bytes, device.op_overhead_s());

  std::map<std::string, std::string> algorithms;
  if (auto n = get("collectives")) {
    // Axis names are checked against the mesh once it is known (parse_run_config), algorithm names by the
    // simulator when the run starts (errors then point here through RunConfig::locations).
    for (const auto& axis : n->keys()) algorithms[axis] = n->child(axis).scalar();
  }
  return HardwareConfig{*topology, device, algorithms};
}

TrainingConfig parse_training(const ConfigNode& root, const std::string& name) {
  TrainingConfig training;
  training.output_dir = "results/" + name;
  const auto node = root.optional_child("training");
  if (!node) return training;
  node->expect_map(kTrainingKeys);
  if (auto n = node->optional_child("optimizer")) {
    const std::string kind = n->one_of({"sgd", "adam", "adafactor"});
    training.optimizer = kind == "sgd"    ? OptimizerKind::sgd
                         : kind == "adam" ? OptimizerKind::adam
                                          : OptimizerKind::adafactor;
  }
  if (auto n = node->optional_child("learning_rate")) {
    training.learning_rate = n->number();
    if (training.learning_rate <= 0) n->fail("must be positive");
  }
  if (auto n = node->optional_child("numerics")) {
    training.numerics = n->one_of({"timing", "full"}) == "full" ? NumericsMode::full : NumericsMode::timing;
  }
  if (auto n = node->optional_child("steps")) {
    const auto steps = n->positive_integer();
    if (steps > kMaxSteps)
      n->fail(fmt::format("{} steps is more than the {} a run may have", steps, kMaxSteps));
    training.steps = static_cast<int>(steps);
  }
  if (auto n = node->optional_child("seed")) {
    const auto seed = n->integer();
    if (seed < 0) n->fail("must not be negative");
    training.seed = static_cast<std::uint64_t>(seed);
  }
  if (auto n = node->optional_child("output")) {
    training.output_dir = n->scalar();
    if (training.output_dir.empty()) n->fail("must not be empty");
  }
  return training;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> default_layout(ModelKind kind,
                                                                const std::vector<MeshAxis>& axes) {
  auto has_axis = [&](const char* name) {
    for (const auto& axis : axes) {
      if (axis.name == name) return true;
    }
    return false;
  };
  std::vector<std::pair<std::string, std::string>> rules;
  if (has_axis("batch")) rules.emplace_back("batch", "batch");
  // Mesh-TensorFlow's MoE layout: experts split like the batch, so dispatching tokens is one alltoall.
  if (kind == ModelKind::moe_transformer && has_axis("batch")) rules.emplace_back("experts", "batch");
  if (!has_axis("model")) return rules;
  if (kind == ModelKind::mlp) {
    rules.emplace_back("d_ff", "model");
    return rules;
  }
  rules.emplace_back("vocab", "model");
  rules.emplace_back("d_ff", "model");
  rules.emplace_back("heads", "model");
  return rules;
}

RunConfig parse_run_config(const std::string& yaml_text, const std::string& file) {
  return parse_run_config(ConfigNode::parse(yaml_text, file), yaml_text);
}

std::vector<std::string> config_keys() {
  std::vector<std::string> keys;
  auto add = [&](const std::string& section, const std::vector<std::string>& names) {
    keys.push_back(section);
    for (const auto& name : names) keys.push_back(section + "." + name);
  };
  keys.push_back("name");
  keys.push_back("description");
  add("hardware", kHardwareKeys);
  add("mesh", kMeshKeys);
  add("model", all_model_keys());
  add("training", kTrainingKeys);
  return keys;
}

bool is_config_key(const std::string& dotted_key) {
  const std::string collectives = "hardware.collectives.";
  if (dotted_key.rfind(collectives, 0) == 0) return is_identifier(dotted_key.substr(collectives.size()));
  const auto keys = config_keys();
  return std::find(keys.begin(), keys.end(), dotted_key) != keys.end();
}

RunConfig parse_run_config(const ConfigNode& root, const std::string& yaml_text) {
  const std::string& file = root.file();
  root.expect_map(kRootKeys);
  std::string name = stem(file);
  if (auto n = root.optional_child("name")) {
    name = n->scalar();
    for (char c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
        n->fail(fmt::format("'{}' is not a run name: use letters, digits, '-', '_' and '.'", name));
      }
    }
    if (name.empty() || name[0] == '.') n->fail("a run name must not be empty or start with '.'");
  }
  std::string description;
  if (auto n = root.optional_child("description")) description = n->scalar();

  HardwareConfig hardware = parse_hardware(root);

  const ConfigNode model_node = root.child("model");
  const ModelConfig model = parse_model(model_node);

  const ConfigNode mesh_node = root.child("mesh");
  mesh_node.expect_map(kMeshKeys);
  MeshConfig mesh;
  const ConfigNode shape_node = mesh_node.child("shape");
  mesh.axes = parse_mesh_shape(shape_node);
  if (mesh.num_cores() != hardware.topology.num_cores()) {
    shape_node.fail(fmt::format("{} has {} cores but the topology {} has {}", mesh.shape_text(),
                                mesh.num_cores(), hardware.topology.name(), hardware.topology.num_cores()));
  }
  std::optional<ConfigNode> mapping_node = mesh_node.optional_child("mapping");
  if (mapping_node) mesh.mapping = parse_mapping(*mapping_node, mesh.axes, hardware.topology);
  std::optional<ConfigNode> layout_node = mesh_node.optional_child("layout");
  mesh.layout =
      layout_node ? parse_layout(*layout_node, model.kind, mesh.axes) : default_layout(model.kind, mesh.axes);
  check_splits(model_node, model, mesh, layout_node ? &*layout_node : nullptr);

  std::map<std::string, std::string> locations;
  locations["mesh.shape"] = shape_node.where();
  locations["mesh.mapping"] =
      mapping_node ? mapping_node->where() : mesh_node.where() + " (default mapping rings)";
  locations["mesh.layout"] =
      layout_node ? layout_node->where() : mesh_node.where() + " (default layout " + mesh.layout_text() + ")";
  if (auto n = root.optional_child("hardware")) {
    if (auto algorithms = n->optional_child("collectives")) {
      std::vector<std::string> axis_names;
      for (const auto& axis : mesh.axes) axis_names.push_back(axis.name);
      algorithms->expect_map(axis_names);
      locations["hardware.collectives"] = algorithms->where();
      std::vector<std::string> known;
      for (const auto& info : sim::algorithm_table()) {
        if (std::find(known.begin(), known.end(), info.name) == known.end()) known.push_back(info.name);
      }
      for (const auto& axis : algorithms->keys()) {
        const ConfigNode node = algorithms->child(axis);
        locations["hardware.collectives." + axis] = node.where();
        node.one_of(known);
      }
    }
  }

  TrainingConfig training = parse_training(root, name);
  if (training.numerics == NumericsMode::full) {
    const NumericsCost cost = full_numerics_cost(model, training);
    if (!cost.fits()) {
      root.child("training")
          .child("numerics")
          .fail(fmt::format("full numerics of this model would need about {:.3g} FLOPs and {} of host memory "
                            "per step; a full run is "
                            "limited to {:.3g} FLOPs and {} (use numerics: timing, or a smaller model)",
                            cost.flops_per_step, format_bytes(cost.host_bytes),
                            NumericsCost::kMaxFlopsPerStep, format_bytes(NumericsCost::kMaxHostBytes)));
    }
  }
  return RunConfig{name, description, file, yaml_text, hardware, mesh, model, training, locations};
}

RunConfig load_run_config_file(const std::string& path) {
  return parse_run_config(read_input_file(path, "config file"), path);
}

}  // namespace tpusim::workloads
