#pragma once
// The candidates of a search (search_spec.hpp): a mesh shape over the pod's cores (a factorisation into up to
// mesh_dims sizes of 2 or more, after a `stage` axis of the stage count when the candidate is pipelined),
// layout rules placing each of layout_dims on one mesh axis or none, a pipeline (stage count and
// microbatches), a weight-sharding mode, a mapping and an algorithm per mesh axis. A state is the vector of
// those choices; candidates are states named as the paper names meshes, so different states can be one
// candidate (and states whose mesh has an axis that splits nothing, or that break a pin, are none). A mesh
// with no axis splitting the batch has nothing to shard weights over: its candidates shard none. Which
// candidates the engine can lay out is left to the engine.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "topologies/topology.hpp"
#include "workloads/config/run_config.hpp"
#include "workloads/search/candidate.hpp"
#include "workloads/search/search_spec.hpp"

namespace tpusim::workloads {

// Physical axes per position of a mesh shape: {{"core", "x"}, {"y"}}.
using PositionalAxes = std::vector<std::vector<std::string>>;

// A mesh of the space: `stages` > 1 puts an axis stage:stages first; `sizes` are the batch and model axes'.
struct SearchShape {
  int stages = 1;
  std::vector<int> sizes;
};

struct SearchState {
  int shape = 0;               // index into SearchSpace::shapes()
  std::vector<int> placement;  // per layout dim: 0 unsplit, p >= 1 the shape's p-th size
  int mapping = 0;             // index into the shape's mappings (the spec's, `explicit` expanded)
  std::vector<int> algorithm;  // per size of the shape: index into the spec's algorithms
  int pipeline = 0;            // index into the pipelines of the shape's stage count
  int weight_sharding = 0;     // index into the weight-sharding modes (none when nothing splits the batch)
};

// What a candidate sets of the training keys, to find the config's own among the candidates: "" and 0 for
// anything.
struct TrainingChoice {
  std::string weight_sharding;
  int pipeline_stages = 0;
  int microbatches = 0;
};

class SearchSpace {
 public:
  SearchSpace(const RunConfig& base, const SearchSpec& spec);

  const std::vector<std::string>& layout_dims() const { return layout_dims_; }
  const std::vector<SearchShape>& shapes() const { return shapes_; }
  // The candidate a state stands for, or nullopt when it stands for none.
  std::optional<Candidate> candidate(const SearchState& state) const;
  // How many distinct candidates there are, and the first `limit` of them in a fixed order (by stage count,
  // mesh rank, sizes, placements, then pipelines, weight sharding, mappings and algorithms).
  std::uint64_t size() const { return size_; }
  std::vector<Candidate> enumerate(std::uint64_t limit = UINT64_MAX) const;
  // A state of a uniformly drawn mesh and layout, with random other choices.
  SearchState random_state(std::mt19937_64& random) const;
  // A state differing in one choice that stands for a candidate (the same state if none is found).
  SearchState neighbour(const SearchState& state, std::mt19937_64& random) const;
  // A state that stands for this mesh, layout, mapping and training choice with default algorithms, if the
  // space has one.
  std::optional<SearchState> state_of(const std::string& mesh_shape, const std::string& layout,
                                      const std::string& mapping, const TrainingChoice& training = {}) const;

 private:
  // The candidate with default algorithms and no training choices, and the position of each of its axes in
  // the state's shape (0 for the stage axis).
  std::optional<Candidate> structure(const SearchState& state, std::vector<int>* positions = nullptr) const;
  bool splits_batch(const SearchState& state) const;
  int pipeline_count(int shape) const;  // pipelines of the shape's stage count
  int weight_sharding_count(const SearchState& state) const;
  std::uint64_t combinations(const SearchState& structure) const;

  // A mapping of the spec's, or one explicit assignment of physical axes (the first varying fastest) to each
  // axis of a shape (the stage axis first).
  struct MappingChoice {
    std::string text;
    PositionalAxes axes;
  };

  SearchSpec spec_;
  std::vector<std::string> layout_dims_;
  std::vector<std::string> listed_shapes_;  // spec.mesh_shapes as candidates write them
  std::vector<SearchShape> shapes_;
  std::vector<std::vector<MappingChoice>> mapping_choices_;  // per shape
  // Per stage count: the pipelines tried (when the search varies them; else the base's own, not written).
  std::vector<std::pair<int, std::vector<PipelineChoice>>> pipelines_;
  bool pipelines_written_ = false;
  std::vector<mtf::WeightShardingMode> weight_sharding_;
  bool weight_sharding_written_ = false;
  std::vector<SearchState> structures_;  // one state per distinct mesh and layout, in enumeration order
  std::uint64_t size_ = 0;
};

}  // namespace tpusim::workloads
