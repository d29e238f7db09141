#pragma once
// The candidates of a search (search_spec.hpp): a mesh shape over the pod's cores (a factorisation into up to
// mesh_dims sizes of 2 or more), layout rules placing each of layout_dims on one mesh axis or none, a mapping
// and an algorithm per mesh axis. A state is the vector of those choices; candidates are states named as the
// paper names meshes, so different states can be one candidate (and states whose mesh has an axis that splits
// nothing, or that break a pin, are none). Which candidates the engine can lay out is left to the engine.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "topologies/topology.hpp"
#include "workloads/config/run_config.hpp"
#include "workloads/search/search_spec.hpp"

namespace tpusim::workloads {

struct Candidate {
  std::string mesh_shape;  // "batch:16;model:32"
  std::string layout;      // "batch:batch;vocab:model;d_ff:model;heads:model"
  std::string mapping;     // "rings"
  std::vector<std::pair<std::string, std::string>> algorithms;  // mesh axis -> name or kDefaultAlgorithm
  std::string algorithms_text() const;  // "batch=bucket2d;model=default", or "default" when all are
  std::string key() const;              // every field: equal keys, equal candidates
};

// Physical axes per position of a mesh shape: {{"core", "x"}, {"y"}}.
using PositionalAxes = std::vector<std::vector<std::string>>;

struct SearchState {
  int shape = 0;               // index into SearchSpace::shapes()
  std::vector<int> placement;  // per layout dim: 0 unsplit, p >= 1 the shape's p-th size
  int mapping = 0;             // index into the shape's mappings (the spec's, `explicit` expanded)
  std::vector<int> algorithm;  // per position of the shape: index into the spec's algorithms
};

class SearchSpace {
 public:
  SearchSpace(const RunConfig& base, const SearchSpec& spec);

  const std::vector<std::string>& layout_dims() const { return layout_dims_; }
  const std::vector<std::vector<int>>& shapes() const { return shapes_; }  // sizes in position order
  // The candidate a state stands for, or nullopt when it stands for none.
  std::optional<Candidate> candidate(const SearchState& state) const;
  // How many distinct candidates there are, and the first `limit` of them in a fixed order (by mesh rank,
  // sizes, placements, then mappings and algorithms).
  std::uint64_t size() const { return size_; }
  std::vector<Candidate> enumerate(std::uint64_t limit = UINT64_MAX) const;
  // A state of a uniformly drawn mesh and layout, with random mapping and algorithms.
  SearchState random_state(std::mt19937_64& random) const;
  // A state differing in one choice that stands for a candidate (the same state if none is found).
  SearchState neighbour(const SearchState& state, std::mt19937_64& random) const;
  // A state that stands for this mesh, layout and mapping with default algorithms, if the space has one.
  std::optional<SearchState> state_of(const std::string& mesh_shape, const std::string& layout,
                                      const std::string& mapping) const;

 private:
  // The candidate with default algorithms, and the position of each of its axes in the state's shape.
  std::optional<Candidate> structure(const SearchState& state, std::vector<int>* positions = nullptr) const;
  std::uint64_t combinations(int shape) const;  // the shape's mappings x algorithms ^ its rank

  // A mapping of the spec's, or one explicit assignment of physical axes (the first varying fastest) to each
  // position of a shape.
  struct MappingChoice {
    std::string text;
    PositionalAxes axes;
  };

  SearchSpec spec_;
  std::vector<std::string> layout_dims_;
  std::vector<std::string> listed_shapes_;  // spec.mesh_shapes as candidates write them
  std::vector<std::vector<int>> shapes_;
  std::vector<std::vector<MappingChoice>> mapping_choices_;  // per shape
  std::vector<SearchState> structures_;  // one state per distinct mesh and layout, in enumeration order
  std::uint64_t size_ = 0;
};

// The base config's text with the candidate's mesh section and hardware.collectives: what `tpusim run` runs.
std::string candidate_config_yaml(const std::string& base_yaml, const Candidate& candidate);

}  // namespace tpusim::workloads
