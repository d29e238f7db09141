#pragma once
// A named tensor dimension (Mesh-TensorFlow's Dimension): programs refer to dimensions by name, layouts map
// names to mesh dimensions, so the same program runs under any layout.
#include <cstdint>
#include <string>

#include "topologies/support/name_table.hpp"

namespace tpusim::mtf {

struct Dimension {
  std::string name;
  std::int64_t size = 0;

  // Throws InputError unless the name is a non-empty identifier ([A-Za-z0-9_]+) and size >= 1.
  Dimension(std::string name, std::int64_t size);
  bool operator==(const Dimension& other) const { return name == other.name && size == other.size; }
  bool operator!=(const Dimension& other) const { return !(*this == other); }
  std::string to_string() const;  // "batch:8"
};

// Element types: numerics always compute in fp32; the dtype decides bytes in HBM and on the wire (bf16 = 2).
// pred is a comparison's result, one byte per element as XLA stores its PRED type; only the graph makes it
// (a dropout mask), never a config.
enum class DType { float32, bfloat16, pred };
inline int dtype_bytes(DType dtype) {
  switch (dtype) {
    case DType::bfloat16:
      return 2;
    case DType::pred:
      return 1;
    case DType::float32:
      break;
  }
  return 4;
}
const char* to_string(DType dtype);  // "float32", "bfloat16", "pred"
const NameTable<DType>& dtypes();  // "float32", "bfloat16" and the short forms "fp32", "f32", "bf16"
DType parse_dtype(const std::string& text);  // InputError listing the valid names

}  // namespace tpusim::mtf
