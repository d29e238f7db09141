#pragma once
// Small search inputs for the search tests: a one-layer language model on the 32-core tpu-v2-32 (a space of
// 139 candidates that a test can check one by one against separate runs), and the same on the 8-core ring.
#include <string>

#include "workloads/search/search_spec.hpp"

namespace tpusim::workloads::test {

// The config's text with `search_section` (YAML lines under "search:", indented by two) appended, if any.
inline std::string lm32_yaml(const std::string& search_section = "") {
  std::string text = R"(name: lm-32
hardware:
  topology: tpu-v2-32
mesh:
  shape: batch:8;model:4
model:
  kind: transformer_lm
  layers: 1
  d_model: 128
  d_ff: 1024
  heads: 16
  d_kv: 32
  vocab: 1024
  batch: 32
  length: 64
training:
  numerics: timing
)";
  if (!search_section.empty()) text += "search:\n" + search_section;
  return text;
}

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

}  // namespace tpusim::workloads::test
