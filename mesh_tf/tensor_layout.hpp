#pragma once
// A tensor's layout: which mesh dimension (if any) each tensor dimension is split over; an injective partial
// map. Processors that differ only along mesh dimensions the tensor does not use hold the same slice. The
// slice of a split dimension of size n over a mesh dimension of size k has n/k elements and starts at
// coord*n/k.
#include <string>
#include <vector>

#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/mesh_shape.hpp"
#include "mesh_tf/shape.hpp"

namespace tpusim::mtf {

class TensorLayout {
 public:
  static constexpr int kUnsplit = -1;

  // Applies the rules to one tensor and enforces every legality rule with an InputError naming the tensor,
  // the dimension and the rule:
  //  - two dimensions of the tensor on the same mesh dimension,
  //  - a split that does not divide evenly,
  //  - splitting a dimension that `unsplittable` lists (concat/split/slice/pad axes, cumsum, shift wrap).
  // (One tensor dimension on two mesh dimensions cannot be expressed by LayoutRules, which reject it.)
  static TensorLayout from_rules(const std::string& tensor_name, const Shape& shape, const MeshShape& mesh,
                                 const LayoutRules& rules, const std::vector<std::string>& unsplittable = {});
  // Explicit form: mesh_dims[i] is the mesh dimension of shape dim i or kUnsplit. Same checks.
  TensorLayout(const std::string& tensor_name, const Shape& shape, const MeshShape& mesh,
               std::vector<int> mesh_dims);

  const Shape& shape() const { return shape_; }
  int mesh_dim_of(int tensor_dim) const { return mesh_dims_[tensor_dim]; }
  const std::vector<int>& mesh_dims() const { return mesh_dims_; }
  int tensor_dim_on(int mesh_dim) const;    // -1 if that mesh dimension splits nothing
  std::vector<int> used_mesh_dims() const;  // ascending
  const std::vector<std::int64_t>& slice_sizes() const { return slice_sizes_; }  // per tensor dim
  std::int64_t slice_elements() const { return slice_elements_; }
  bool operator==(const TensorLayout& other) const {
    return shape_ == other.shape_ && mesh_dims_ == other.mesh_dims_;
  }
  std::string to_string() const;  // "[batch:8 @rows, io:16]"

 private:
  TensorLayout() = default;
  Shape shape_;
  std::vector<int> mesh_dims_;
  std::vector<std::int64_t> slice_sizes_;  // computed once: lowering and the numerics read them per element
  std::int64_t slice_elements_ = 1;
  std::vector<std::string> mesh_names_;  // of the whole mesh
};

}  // namespace tpusim::mtf
