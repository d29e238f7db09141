#include "workloads/search/search_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/mapping_spec.hpp"
#include "topologies/support/child_time_limit.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "workloads/config/config_layers.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/models/model_kinds.hpp"

namespace tpusim::workloads {

const NameTable<SearchStrategy>& search_strategies() {
  static const NameTable<SearchStrategy> table("search strategy", {{"auto", SearchStrategy::automatic},
                                                                   {"exhaustive", SearchStrategy::exhaustive},
                                                                   {"mcmc", SearchStrategy::mcmc}});
  return table;
}

namespace {

// A non-empty list of distinct scalars, each checked by `check` (which fails at the item's node).
std::vector<std::string> read_list(const ConfigNode& node, const std::string& what,
                                   const std::function<void(const ConfigNode&)>& check) {
  std::vector<std::string> texts;
  for (const ConfigNode& item : node.items(what)) {
    const std::string text = item.scalar();
    if (std::find(texts.begin(), texts.end(), text) != texts.end())
      item.fail(fmt::format("'{}' is listed twice", text));
    check(item);
    texts.push_back(text);
  }
  return texts;
}

// A non-empty list of distinct whole numbers of 1 or more, each checked by `check`.
std::vector<int> read_counts(const ConfigNode& node, const std::string& what,
                             const std::function<void(const ConfigNode&, std::int64_t)>& check) {
  std::vector<int> counts;
  for (const ConfigNode& item : node.items(what)) {
    const std::int64_t count = item.positive_integer();
    if (count > 1000000) item.fail(fmt::format("{} is too many; at most 1000000", count));
    if (std::find(counts.begin(), counts.end(), count) != counts.end())
      item.fail(fmt::format("{} is listed twice", count));
    check(item, count);
    counts.push_back(static_cast<int>(count));
  }
  return counts;
}

// Why the base's model cannot run in `stages` pipeline stages on its pod ("" if it can), as the config's
// reader says it of training.pipeline_stages (training_keys.cpp).
std::string search_pipeline_problem(const RunConfig& base, std::int64_t stages) {
  if (stages == 1) return "";
  const ModelConfig& model = base.model;
  if (!model_kind(model.kind).pipelines) {
    std::vector<std::string> kinds;
    for (const auto& kind : model_kinds())
      if (kind.pipelines) kinds.push_back(kind.name);
    return fmt::format("a {} cannot be pipelined; the kinds that can are {}", to_string(model.kind),
                       join(kinds));
  }
  if (model.dropout != 0)
    return fmt::format("a pipelined model builds no dropout, and model.dropout is {}", model.dropout);
  if (stages > model.layers || model.layers % stages != 0)
    return fmt::format("{} stages do not divide the {} layers evenly", stages, model.layers);
  const int cores = base.hardware.topology.num_cores();
  if (stages > cores || cores % stages != 0)
    return fmt::format("{} stages do not divide the {} cores of {} evenly", stages, cores,
                       base.hardware.topology.name());
  return "";
}

std::vector<std::string> paper_layout_dims(ModelKind kind) {
  std::vector<std::string> dims;
  const mtf::LayoutRules paper = mtf::LayoutRules::parse(model_kind(kind).default_layout);
  for (const auto& [dim, axis] : paper.rules()) {
    if (std::find(dims.begin(), dims.end(), dim) == dims.end()) dims.push_back(dim);
  }
  return dims;
}

}  // namespace

std::string SearchSpec::where(const std::string& key) const {
  const auto it = locations.find(key);
  return it != locations.end() ? it->second : fmt::format("{}: search.{}", source, key);
}

namespace {

// Candidates name their mesh axes batch, model, model2 and model3 (search_space.cpp).
void check_candidate_axis(const ConfigNode& node, const std::string& axis) {
  const bool model_axis = axis == "model" || axis == "model2" || axis == "model3";
  if (axis != "batch" && !model_axis)
    node.fail(fmt::format(
        "candidates name their mesh axes batch, model, model2 and model3; '{}' is none of them", axis));
}

void check_model_dim(const ConfigNode& item, const RunConfig& base) {
  const std::string problem = unknown_dimension_problem(model_kind(base.model.kind), item.scalar());
  if (!problem.empty()) item.fail(problem);
}

}  // namespace

const std::vector<SearchKey>& search_keys() {
  static const std::vector<SearchKey> keys = {
      {"mesh_dims", "2", nullptr,
       [](const ConfigNode& n, const RunConfig&, SearchSpec& spec) {
         const std::int64_t dims = n.integer();
         if (dims < 1 || dims > 3) n.fail(fmt::format("{} mesh dimensions; a search explores 1 to 3", dims));
         spec.mesh_dims = static_cast<int>(dims);
       }},
      // Default: the dimensions the model kind's paper layout splits.
      {"layout_dims", nullptr,
       [](const RunConfig& base, SearchSpec& spec) { spec.layout_dims = paper_layout_dims(base.model.kind); },
       [](const ConfigNode& n, const RunConfig& base, SearchSpec& spec) {
         spec.layout_dims =
             read_list(n, "model dimensions", [&](const ConfigNode& item) { check_model_dim(item, base); });
       }},
      {"pin_layout", nullptr, nullptr,
       [](const ConfigNode& n, const RunConfig& base, SearchSpec& spec) {
         try {
           spec.pinned_layout = mtf::LayoutRules::parse(n.scalar()).rules();
         } catch (const InputError& error) {
           n.fail(error.what());
         }
         for (const auto& [dim, axis] : spec.pinned_layout) {
           const std::string problem = unknown_dimension_problem(model_kind(base.model.kind), dim);
           if (!problem.empty()) n.fail(problem);
           check_candidate_axis(n, axis);
         }
       }},
      // Default: every mesh.
      {"mesh_shapes", nullptr, nullptr,
       [](const ConfigNode& n, const RunConfig& base, SearchSpec& spec) {
         spec.mesh_shapes = read_list(n, "mesh shapes", [&](const ConfigNode& item) {
           try {
             const mtf::MeshShape shape = mtf::MeshShape::parse(item.scalar());
             if (shape.size() != base.hardware.topology.num_cores())
               item.fail(fmt::format("{} has {} processors but the topology {} has {} cores", item.scalar(),
                                     shape.size(), base.hardware.topology.name(),
                                     base.hardware.topology.num_cores()));
           } catch (const InputError& error) {
             item.fail(error.what());
           }
         });
       }},
      {"mappings", "[rings]", nullptr,
       [](const ConfigNode& n, const RunConfig&, SearchSpec& spec) {
         spec.mappings = read_list(n, "mesh mappings", [&](const ConfigNode& item) {
           if (item.scalar() == kExplicitMappings) return;
           const mtf::MappingSpec mapping = [&] {
             try {
               return mtf::MappingSpec::parse(item.scalar());
             } catch (const InputError& error) {
               item.fail(error.what());
             }
           }();
           // A pipelined candidate's stage axis may be placed too (on the slices, say).
           for (const auto& [mesh_axis, physical_axes] : mapping.assignment())
             if (mesh_axis != "stage") check_candidate_axis(item, mesh_axis);
         });
       }},
      {"algorithms", "[default]", nullptr,
       [](const ConfigNode& n, const RunConfig&, SearchSpec& spec) {
         std::vector<std::string> known = collective_algorithm_names();
         known.insert(known.begin(), kDefaultAlgorithm);
         spec.algorithms =
             read_list(n, "collective algorithms", [&](const ConfigNode& item) { item.one_of(known); });
       }},
      // Default for the three training choices: the config's own.
      {"weight_sharding", nullptr, nullptr,
       [](const ConfigNode& n, const RunConfig&, SearchSpec& spec) {
         spec.weight_sharding.clear();
         for (const auto& name : read_list(n, "weight-sharding modes", [](const ConfigNode& item) {
                item.choice(mtf::weight_sharding_modes());
              }))
           spec.weight_sharding.push_back(mtf::weight_sharding_modes().parse(name));
       }},
      {"pipeline_stages", nullptr, nullptr,
       [](const ConfigNode& n, const RunConfig& base, SearchSpec& spec) {
         spec.pipeline_stages =
             read_counts(n, "stage counts", [&](const ConfigNode& item, std::int64_t stages) {
               const std::string problem = search_pipeline_problem(base, stages);
               if (!problem.empty()) item.fail(problem);
             });
       }},
      {"microbatches", nullptr, nullptr,
       [](const ConfigNode& n, const RunConfig&, SearchSpec& spec) {
         spec.microbatches = read_counts(n, "microbatch counts", [](const ConfigNode&, std::int64_t) {});
       }},
      // Default: the device's HBM per core.
      {"memory_cap", nullptr,
       [](const RunConfig& base, SearchSpec& spec) {
         spec.memory_cap_bytes = base.hardware.device.hbm_bytes();
       },
       [](const ConfigNode& n, const RunConfig&, SearchSpec& spec) {
         spec.memory_cap_bytes = n.memory_bytes();
       }},
      {"strategy", "auto", nullptr,
       [](const ConfigNode& n, const RunConfig&, SearchSpec& spec) {
         spec.strategy = n.choice(search_strategies());
       }},
      {"max_candidates", "5000", nullptr,
       [](const ConfigNode& n, const RunConfig&, SearchSpec& spec) {
         const std::int64_t count = n.positive_integer();
         if (count > 10000000) n.fail(fmt::format("{} candidates; at most 10000000", count));
         spec.max_candidates = static_cast<int>(count);
       }},
      {"time_limit", "0", nullptr,
       [](const ConfigNode& n, const RunConfig&, SearchSpec& spec) {
         spec.time_limit_s = n.number();
         if (!(spec.time_limit_s == 0 || (spec.time_limit_s >= 0.001 && spec.time_limit_s <= kMaxTimeLimitS)))
           n.fail(fmt::format("a time limit is 0 (none) or 0.001 to {:g} seconds (a week)", kMaxTimeLimitS));
       }},
      {"seed", "1", nullptr, [](const ConfigNode& n, const RunConfig&, SearchSpec& spec) {
         const std::int64_t seed = n.integer();
         if (seed < 0) n.fail("a seed is a whole number of 0 or more");
         spec.seed = static_cast<std::uint64_t>(seed);
       }}};
  return keys;
}

namespace {

std::vector<std::string> search_key_names() {
  std::vector<std::string> names;
  for (const auto& key : search_keys()) names.push_back(key.name);
  return names;
}

// The keys `s` writes, read into `spec`.
void read_section(const ConfigNode& s, const RunConfig& base, SearchSpec& spec) {
  s.expect_map(search_key_names());
  for (const auto& key : search_keys()) {
    if (auto n = s.optional_child(key.name)) {
      spec.locations[key.name] = n->where();
      key.read(*n, base, spec);
    }
  }
}

}  // namespace

std::vector<PipelineChoice> pipeline_choices(const SearchSpec& spec, const RunConfig& base) {
  if (spec.pipeline_stages.empty() && spec.microbatches.empty()) return {};
  const PipelineConfig& own = base.model.pipeline;
  const std::vector<int> stage_counts =
      spec.pipeline_stages.empty() ? std::vector<int>{own.stages} : spec.pipeline_stages;
  std::vector<PipelineChoice> choices;
  for (const int stages : stage_counts) {
    if (stages == 1) {
      choices.push_back({1, 1});
      continue;
    }
    std::vector<int> counts = spec.microbatches;
    if (counts.empty())
      counts = {own.stages == stages && own.microbatches > 1 ? own.microbatches : 4 * stages};
    for (const int microbatches : counts) choices.push_back({stages, microbatches});
  }
  return choices;
}

std::vector<mtf::WeightShardingMode> weight_sharding_choices(const SearchSpec& spec, const RunConfig& base) {
  return spec.weight_sharding.empty() ? std::vector<mtf::WeightShardingMode>{base.training.weight_sharding}
                                      : spec.weight_sharding;
}

SearchSpec read_search_spec(const std::optional<ConfigNode>& section, const RunConfig& base) {
  SearchSpec spec;
  spec.source = base.source;
  // Every key's default first, from its row, then the keys the section writes.
  for (const auto& key : search_keys()) {
    if (key.default_yaml != nullptr) {
      const std::string label = fmt::format("search.{} (default)", key.name);
      key.read(ConfigNode::parse(std::string("value: ") + key.default_yaml + "\n", label).child("value"),
               base, spec);
    } else if (key.fallback != nullptr) {
      key.fallback(base, spec);
    }
  }
  if (section) read_section(*section, base, spec);
  return spec;
}

void override_search_key(SearchSpec& spec, const std::string& key, const std::string& yaml_value,
                         const std::string& option, const RunConfig& base) {
  const ConfigNode parsed = ConfigNode::parse(key + ": " + yaml_value + "\n", option);
  read_section(ConfigNode(parsed.yaml(), option, "search"), base, spec);
}

SearchInput load_search_input(const std::string& yaml_text, const std::string& file, OpenMesh open_mesh,
                              const std::vector<ConfigSetting>& sets) {
  const ConfigNode written = ConfigNode::parse(yaml_text, file);
  const bool is_map = written.yaml().IsMap();
  std::optional<ConfigNode> section;
  if (is_map && written.has("search")) section.emplace(written.child("search"));
  // The run config: the file over its base and under the --set values, its search section left out.
  std::optional<ConfigNode> root;
  std::string base_yaml = yaml_text;
  if ((is_map && written.has("base")) || !sets.empty()) {
    LayeredConfig layers = layer_config(yaml_text, file, sets);
    root.emplace(layers.root);
    base_yaml = layers.text;
  } else {
    root.emplace(written);
    if (section) {
      YAML::Node tree = written.yaml();
      tree.remove("search");
      YAML::Emitter out;
      out << tree;
      base_yaml = std::string(out.c_str()) + "\n";
    }
  }
  const bool mesh_open = open_mesh == OpenMesh::allowed && root->yaml().IsMap() && !root->has("mesh");
  if (mesh_open) {
    // Without a mesh of its own the config is read with the mesh that splits nothing, which every model
    // fits; candidates replace it, and there is no layout of the config's own to compare with.
    YAML::Node tree = root->yaml();
    tree["mesh"]["shape"] = "batch:*", tree["mesh"]["layout"] = "";
  }
  SearchInput input{parse_run_config(*root, base_yaml), {}, base_yaml, !mesh_open};
  input.base.source = file;
  input.spec = read_search_spec(section, input.base);
  return input;
}

}  // namespace tpusim::workloads
