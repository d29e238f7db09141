#pragma once
// Small search inputs for the search tests: the one-layer language model of lm32_config.hpp, and smaller
// ones on the 8-core ring (one layer, and two for pipelines).
#include <string>

#include "tests/workloads/search/lm32_config.hpp"
#include "workloads/search/search_spec.hpp"

namespace tpusim::workloads::test {

inline SearchInput lm32_input(const std::string& search_section = "") {
  return load_search_input(lm32_yaml(search_section), "lm-32.yaml");
}

inline SearchInput ring8_input(const std::string& search_section) {
  const std::string text = R"(name: lm-8
hardware:
  topology: ring-8
mesh:
  shape: batch:2;model:4
model:
  kind: transformer_lm
  layers: 1
  d_model: 32
  d_ff: 64
  heads: 4
  d_kv: 8
  vocab: 64
  batch: 8
  length: 16
training:
  numerics: timing
search:
)" + search_section;
  return load_search_input(text, "lm-8.yaml");
}

// The 8-core one with two layers, which 2 pipeline stages divide: its config text with `search_section`.
inline std::string pipelined8_yaml(const std::string& search_section) {
  return R"(name: lm-8p
hardware:
  topology: ring-8
mesh:
  shape: batch:2;model:4
model:
  kind: transformer_lm
  layers: 2
  d_model: 32
  d_ff: 64
  heads: 4
  d_kv: 8
  vocab: 64
  batch: 8
  length: 16
training:
  numerics: timing
search:
  layout_dims: [batch, d_ff]
)" + search_section;
}

inline SearchInput pipelined8_input(const std::string& search_section) {
  return load_search_input(pipelined8_yaml(search_section), "lm-8p.yaml");
}

}  // namespace tpusim::workloads::test
