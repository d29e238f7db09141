#include "mesh_tf/mesh_shape.hpp"

#include <fmt/format.h>

#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

MeshShape::MeshShape(Shape dims) : dims_(std::move(dims)) {
  if (dims_.num_elements() > (1 << 24)) {
    throw InputError(fmt::format("mesh {} has {} processors; at most {} are supported", to_string(),
                                 dims_.num_elements(), 1 << 24));
  }
}

MeshShape MeshShape::parse(const std::string& text) {
  if (text.empty() || text == "single") return MeshShape();
  try {
    return MeshShape(Shape::parse(text));
  } catch (const InputError& error) {
    throw InputError(fmt::format("mesh '{}': {}; expected e.g. 'rows:16;cols:32'", text, error.what()));
  }
}

std::vector<int> MeshShape::processor_coords(int processor) const {
  TPUSIM_CHECK(processor >= 0 && processor < size());
  std::vector<int> coords(rank());
  for (int d = rank() - 1; d >= 0; --d) {
    coords[d] = processor % dim_size(d);
    processor /= dim_size(d);
  }
  return coords;
}

int MeshShape::processor_index(const std::vector<int>& coords) const {
  TPUSIM_CHECK(static_cast<int>(coords.size()) == rank());
  int index = 0;
  for (int d = 0; d < rank(); ++d) {
    TPUSIM_CHECK(coords[d] >= 0 && coords[d] < dim_size(d));
    index = index * dim_size(d) + coords[d];
  }
  return index;
}

std::string MeshShape::to_string() const {
  if (rank() == 0) return "single";
  std::vector<std::string> parts;
  for (const auto& dim : dims_.dims()) parts.push_back(dim.to_string());
  return join(parts, ";");
}

}  // namespace tpusim::mtf
