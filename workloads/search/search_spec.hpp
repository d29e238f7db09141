#pragma once
// What `tpusim search` explores, from the optional `search:` section of a run config (which `tpusim run`
// does not read) and the command line's overrides. Its keys are rows (search_keys.cpp), each with its type,
// default and meaning, which `tpusim search --schema` lists; workloads/README.md, section Search, shows a
// section that writes every key.
//
// Candidates name their mesh axes by role, as the paper does: the axis that splits the batch is "batch",
// the others "model", "model2" (in order); every axis splits at least one dimension. A stage count S above 1
// adds an axis "stage" of size S before them (the others factorise cores / S) with the layout rule
// stage:stage, as the pipelined model runs its stages (models/pipelined_lm.hpp).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/config/config_layers.hpp"
#include "workloads/config/key_row.hpp"
#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

class ConfigNode;

enum class SearchStrategy { automatic, exhaustive, mcmc };
const NameTable<SearchStrategy>& search_strategies();  // auto, exhaustive, mcmc

// read_search_spec fills every field: a key's default is written once, in its row (search_keys.cpp).
struct SearchSpec {
  int mesh_dims = 0;
  std::vector<std::string> layout_dims;
  std::vector<std::pair<std::string, std::string>> pinned_layout;  // dim -> mesh axis name
  std::vector<std::string> mesh_shapes;                            // empty: any
  std::vector<std::string> mappings;
  std::vector<std::string> algorithms;
  // Training choices; empty: the base config's own, which candidates leave as it is written.
  std::vector<mtf::WeightShardingMode> weight_sharding;
  std::vector<int> pipeline_stages;
  std::vector<int> microbatches;  // for stage counts above 1 (stage count 1 runs the batch whole)
  std::uint64_t memory_cap_bytes = 0;
  SearchStrategy strategy = SearchStrategy::automatic;
  int max_candidates = 0;
  double time_limit_s = 0;
  std::uint64_t seed = 0;
  // "file:line: search.key" of each key written; where() falls back to "file: search.key".
  std::string source;
  std::map<std::string, std::string> locations;
  std::string where(const std::string& key) const;
};

// A pipeline a candidate runs: training.pipeline_stages and training.microbatches.
struct PipelineChoice {
  int stages = 1;
  int microbatches = 1;
};
// The pipelines a search tries, in the spec's order (stage counts, then microbatch counts): empty when it
// lists neither pipeline_stages nor microbatches (candidates keep the base's own). A stage count of 1 runs
// the batch whole; one above 1 takes each of `microbatches`, by default the base's own count where the base
// has that many stages, else 4 x stages, from which GPipe found the bubble's overhead negligible (Huang et
// al. 2019, "GPipe", arXiv 1811.06965, section 2.3: M >= 4K micro-batches on K partitions).
std::vector<PipelineChoice> pipeline_choices(const SearchSpec& spec, const RunConfig& base);
// The weight-sharding modes tried, as the spec lists them or the base's own.
std::vector<mtf::WeightShardingMode> weight_sharding_choices(const SearchSpec& spec, const RunConfig& base);

// The word for "the engine's default algorithm" in `algorithms`.
inline constexpr const char* kDefaultAlgorithm = "default";
// The word in `mappings` for every explicit assignment of the pod's physical axes to a mesh's axes (each
// axis longer than 1 to one mesh axis, the sizes multiplying to its size, in every order).
inline constexpr const char* kExplicitMappings = "explicit";

// What a row of the section reads into: the spec, checked against the config searched from.
struct SearchReading {
  const RunConfig& base;
  SearchSpec& spec;
};
// A key of the section, one row each (search_keys.cpp), in the order they are read: key ("search.mesh_dims"),
// type, doc and what a section that leaves it out gets (key_row.hpp).
using SearchKeyRow = PlainKeyRow<SearchReading>;
const std::vector<SearchKeyRow>& search_keys();

// The section as written (nullopt: absent), checked against `base` (its model's dimensions, its topology's
// mesh axes, the algorithm registry): InputError "file:line: search.key: problem".
SearchSpec read_search_spec(const std::optional<ConfigNode>& section, const RunConfig& base);

// The command line's value of one key (YAML text, such as "[default, auto]"), read as the section reads it;
// its problems are reported at `option` ("--algorithms:1: search.algorithms[1]: ...").
void override_search_key(SearchSpec& spec, const std::string& key, const std::string& yaml_value,
                         const std::string& option, const RunConfig& base);

// A search config: a run config whose `search:` section is split off. The run config is parsed as
// `tpusim run` would parse the file without that section. A config without a mesh section leaves the mesh
// open: it is read with a mesh that splits nothing (batch:* with no layout rules) and has no layout of its
// own to compare the best with.
struct SearchInput {
  RunConfig base;
  SearchSpec spec;
  std::string base_yaml;  // the config's text without the search section, as the candidates start from
  bool has_own_mesh = true;
};
// An open mesh is allowed for a search and refused for `tpusim run`, which reads a config without a mesh as a
// run config does (the missing key).
enum class OpenMesh { allowed, refused };
// `sets` are the command line's --set values, over the config and its base (config_layers.hpp).
SearchInput load_search_input(const std::string& yaml_text, const std::string& file,
                              OpenMesh open_mesh = OpenMesh::allowed, const std::vector<ConfigSetting>& sets = {});

}  // namespace tpusim::workloads
