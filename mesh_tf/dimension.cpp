#include "mesh_tf/dimension.hpp"

#include <fmt/format.h>

#include <cctype>

#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

Dimension::Dimension(std::string name_in, std::int64_t size_in) : name(std::move(name_in)), size(size_in) {
  bool identifier = !name.empty();
  for (const char c : name)
    identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!identifier) {
    throw InputError(
        fmt::format("dimension name '{}' must be a non-empty identifier of letters, digits and '_'", name));
  }
  if (size < 1)
    throw InputError(fmt::format("dimension '{}' has size {}; sizes must be at least 1", name, size));
}

std::string Dimension::to_string() const { return fmt::format("{}:{}", name, size); }

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::bfloat16:
      return "bfloat16";
    case DType::pred:
      return "pred";
    case DType::float32:
      break;
  }
  return "float32";
}

const NameTable<DType>& dtypes() {
  // The short forms are the ones configs write (activation_dtype: bf16).
  static const NameTable<DType> table("dtype", {{"float32", DType::float32},
                                                {"bfloat16", DType::bfloat16},
                                                {"fp32", DType::float32},
                                                {"f32", DType::float32},
                                                {"bf16", DType::bfloat16}});
  return table;
}

DType parse_dtype(const std::string& text) { return dtypes().parse(text); }

}  // namespace tpusim::mtf
