#include "workloads/search/search_spec.hpp"

#include <fmt/format.h>

#include "workloads/config/config_layers.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/key_rows_reader.hpp"

namespace tpusim::workloads {

const NameTable<SearchStrategy>& search_strategies() {
  static const NameTable<SearchStrategy> table("search strategy", {{"auto", SearchStrategy::automatic},
                                                                   {"exhaustive", SearchStrategy::exhaustive},
                                                                   {"mcmc", SearchStrategy::mcmc}});
  return table;
}

std::string SearchSpec::where(const std::string& key) const {
  const auto it = locations.find(key);
  return it != locations.end() ? it->second : fmt::format("{}: search.{}", source, key);
}

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
  SearchReading reading{base, spec};
  spec.locations = read_key_rows(section, search_keys(), reading);
  return spec;
}

void override_search_key(SearchSpec& spec, const std::string& key, const std::string& yaml_value,
                         const std::string& option, const RunConfig& base) {
  const ConfigNode parsed = ConfigNode::parse(key + ": " + yaml_value + "\n", option);
  SearchReading reading{base, spec};
  for (auto& [name, where] : read_key_rows(ConfigNode(parsed.yaml(), option, "search"), search_keys(),
                                           reading, {RowsToRead::written}))
    spec.locations[name] = where;
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
