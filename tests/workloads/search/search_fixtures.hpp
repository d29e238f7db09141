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

// The 8-core model's config up to its search section: `name`, its mesh section, `layers` layers and the
// training lines (two-space indented) `training`.
inline std::string ring8_config_yaml(const std::string& name, const std::string& mesh, int layers,
                                     const std::string& training = "") {
  return "name: " + name + "\nhardware:\n  topology: ring-8\nmesh:\n" + mesh + R"(model:
  kind: transformer_lm
  layers: )" +
         std::to_string(layers) +
         R"(
  d_model: 32
  d_ff: 64
  heads: 4
  d_kv: 8
  vocab: 64
  batch: 8
  length: 16
training:
  numerics: timing
)" + training;
}

inline SearchInput ring8_input(const std::string& search_section) {
  return load_search_input(
      ring8_config_yaml("lm-8", "  shape: batch:2;model:4\n", 1) + "search:\n" + search_section, "lm-8.yaml");
}

// The 8-core one with two layers, which 2 pipeline stages divide: its config text with `search_section`.
inline std::string pipelined8_yaml(const std::string& search_section) {
  return ring8_config_yaml("lm-8p", "  shape: batch:2;model:4\n", 2) +
         "search:\n  layout_dims: [batch, d_ff]\n" + search_section;
}

inline SearchInput pipelined8_input(const std::string& search_section) {
  return load_search_input(pipelined8_yaml(search_section), "lm-8p.yaml");
}

}  // namespace tpusim::workloads::test
