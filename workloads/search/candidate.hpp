#pragma once
// One candidate of a search (search_space.hpp): a mesh, its layout rules, a mapping, an algorithm per mesh
// axis and, when the search varies them, the training choices (weight sharding, pipeline stages and
// microbatches), and the config `tpusim run` runs for it.
#include <string>
#include <utility>
#include <vector>

namespace tpusim::workloads {

struct Candidate {
  std::string mesh_shape;  // "batch:16;model:32", "stage:2;batch:2;model:16"
  std::string layout;      // "batch:batch;vocab:model;d_ff:model;heads:model"
  std::string mapping;     // "rings"
  std::vector<std::pair<std::string, std::string>> algorithms;  // mesh axis -> name or kDefaultAlgorithm
  // The training choices a search varies; "" and 0 keep the base config's own as it is written.
  std::string weight_sharding;          // training.weight_sharding: none, update, full
  int pipeline_stages = 0;              // training.pipeline_stages
  int microbatches = 0;                 // training.microbatches
  std::string algorithms_text() const;  // "batch=bucket2d;model=default", or "default" when all are
  // "weight_sharding=full;pipeline=2x8" (stages x microbatches), the parts a search varies; "" for none.
  std::string training_text() const;
  std::string key() const;  // every field: equal keys, equal candidates
};

// The base config's text with the candidate's mesh section, hardware.collectives and the training keys it
// sets: what `tpusim run` runs.
std::string candidate_config_yaml(const std::string& base_yaml, const Candidate& candidate);

}  // namespace tpusim::workloads
