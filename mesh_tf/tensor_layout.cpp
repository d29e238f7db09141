#include "mesh_tf/tensor_layout.hpp"

#include <fmt/format.h>

#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

TensorLayout TensorLayout::from_rules(const std::string& tensor_name, const Shape& shape,
                                      const MeshShape& mesh, const LayoutRules& rules,
                                      const std::vector<std::string>& unsplittable) {
  std::vector<int> mesh_dims(shape.rank(), kUnsplit);
  for (int i = 0; i < shape.rank(); ++i) {
    const auto mesh_dim = rules.mesh_dim_for(shape[i].name);
    if (!mesh_dim) continue;
    const int index = mesh.index_of(*mesh_dim);
    if (index < 0) rules.check_against(mesh);  // throws with the rule named
    for (const auto& forbidden : unsplittable) {
      if (forbidden == shape[i].name) {
        throw InputError(
            fmt::format("tensor '{}': dimension '{}' cannot be split (layout rule '{}:{}'): the operation "
                        "producing or reading "
                        "it works along that dimension (concat/split/slice/pad/cumsum axis); remove the rule "
                        "or rename the "
                        "dimension",
                        tensor_name, shape[i].name, shape[i].name, *mesh_dim));
      }
    }
    mesh_dims[i] = index;
  }
  return TensorLayout(tensor_name, shape, mesh, std::move(mesh_dims));
}

TensorLayout::TensorLayout(const std::string& tensor_name, const Shape& shape, const MeshShape& mesh,
                           std::vector<int> mesh_dims)
    : shape_(shape), mesh_dims_(std::move(mesh_dims)) {
  TPUSIM_CHECK(static_cast<int>(mesh_dims_.size()) == shape.rank());
  for (int m = 0; m < mesh.rank(); ++m) mesh_names_.push_back(mesh.dim_name(m));
  for (int i = 0; i < shape.rank(); ++i) {
    const int m = mesh_dims_[i];
    if (m == kUnsplit) {
      slice_sizes_.push_back(shape[i].size);
      continue;
    }
    TPUSIM_CHECK(m >= 0 && m < mesh.rank());
    for (int j = 0; j < i; ++j) {
      if (mesh_dims_[j] == m) {
        throw InputError(
            fmt::format("tensor '{}' of shape {}: dimensions '{}' and '{}' are both split over mesh "
                        "dimension '{}'; a mesh "
                        "dimension may split at most one dimension of a tensor",
                        tensor_name, shape.to_string(), shape[j].name, shape[i].name, mesh.dim_name(m)));
      }
    }
    if (shape[i].size % mesh.dim_size(m) != 0) {
      throw InputError(fmt::format(
          "tensor '{}': dimension '{}' of size {} cannot be split evenly over mesh dimension '{}' of size {}",
          tensor_name, shape[i].name, shape[i].size, mesh.dim_name(m), mesh.dim_size(m)));
    }
    slice_sizes_.push_back(shape[i].size / mesh.dim_size(m));
  }
  for (const auto size : slice_sizes_) slice_elements_ *= size;
}

int TensorLayout::tensor_dim_on(int mesh_dim) const {
  for (std::size_t i = 0; i < mesh_dims_.size(); ++i) {
    if (mesh_dims_[i] == mesh_dim) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> TensorLayout::used_mesh_dims() const {
  std::vector<int> used;
  for (std::size_t m = 0; m < mesh_names_.size(); ++m) {
    if (tensor_dim_on(static_cast<int>(m)) >= 0) used.push_back(static_cast<int>(m));
  }
  return used;
}

std::string TensorLayout::to_string() const {
  std::string out = "[";
  for (int i = 0; i < shape_.rank(); ++i) {
    if (i > 0) out += ", ";
    out += shape_[i].to_string();
    if (mesh_dims_[i] != kUnsplit) out += " @" + mesh_names_[mesh_dims_[i]];
  }
  return out + "]";
}

}  // namespace tpusim::mtf
