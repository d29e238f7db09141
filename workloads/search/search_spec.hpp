#pragma once
// What `tpusim search` explores, from the optional `search:` section of a run config (which `tpusim run`
// does not read) and the command line's overrides:
//
//   search:
//     mesh_dims: 2                    # mesh dimensions, 1 to 3 (factorisations of the cores)
//     layout_dims: [batch, vocab, d_ff, heads]  # model dimensions a candidate may split; default: those the
//                                     # model kind's paper layout splits
//     pin_layout: vocab:model         # rules every candidate keeps (mesh axes named as candidates name them)
//     mesh_shapes: [batch:16;model:32]  # only these meshes (as candidates write them); default: all
//     mappings: [rings]               # mesh.mapping values to try; explicit: every assignment of whole
//                                     # physical axes to the candidate's mesh axes
//     algorithms: [default]           # per mesh axis: default (the engine's), auto, or a registry name
//     memory_cap: 8GiB                # per core; default the device's HBM
//     strategy: auto                  # exhaustive, mcmc, or auto: exhaustive when the space has at most
//                                     # max_candidates candidates
//     max_candidates: 5000
//     time_limit: 0                   # seconds (0.001 to a week), 0 for none
//     seed: 1
//
// Candidates name their mesh axes by role, as the paper does: the axis that splits the batch is "batch",
// the others "model", "model2" (in order); every axis splits at least one dimension.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/config/config_layers.hpp"
#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

class ConfigNode;

enum class SearchStrategy { automatic, exhaustive, mcmc };
const NameTable<SearchStrategy>& search_strategies();  // auto, exhaustive, mcmc

struct SearchSpec {
  int mesh_dims = 2;
  std::vector<std::string> layout_dims;
  std::vector<std::pair<std::string, std::string>> pinned_layout;  // dim -> mesh axis name
  std::vector<std::string> mesh_shapes;                            // empty: any
  std::vector<std::string> mappings{"rings"};
  std::vector<std::string> algorithms{"default"};
  std::uint64_t memory_cap_bytes = 0;
  SearchStrategy strategy = SearchStrategy::automatic;
  int max_candidates = 5000;
  double time_limit_s = 0;
  std::uint64_t seed = 1;
  // "file:line: search.key" of each key written; where() falls back to "file: search.key".
  std::string source;
  std::map<std::string, std::string> locations;
  std::string where(const std::string& key) const;
};

// The word for "the engine's default algorithm" in `algorithms`.
inline constexpr const char* kDefaultAlgorithm = "default";
// The word in `mappings` for every explicit assignment of the pod's physical axes to a mesh's axes (each
// axis longer than 1 to one mesh axis, the sizes multiplying to its size, in every order).
inline constexpr const char* kExplicitMappings = "explicit";

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
