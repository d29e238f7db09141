#pragma once
// A one-layer language model on the 32-core tpu-v2-32 for the search tests, as YAML: a space of 139
// candidates (with the default search section) that a test can check one by one against separate runs.
#include <string>

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

}  // namespace tpusim::workloads::test
