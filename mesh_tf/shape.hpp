#pragma once
// An ordered list of dimensions with unique names. The order is the memory order of a tensor's data (row
// major: the last dimension varies fastest).
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "mesh_tf/dimension.hpp"

namespace tpusim::mtf {

class Shape {
 public:
  Shape() = default;
  // Throws InputError on a repeated dimension name, or when the element count would not fit 64 bits (a shape
  // is also the index space of an einsum, which may exceed any tensor; tensors are bounded by the Graph).
  Shape(std::vector<Dimension> dims);
  Shape(std::initializer_list<Dimension> dims) : Shape(std::vector<Dimension>(dims)) {}
  // "batch:8,io:16" (',' or ';' between dimensions); "" or "scalar" is the empty shape.
  static Shape parse(const std::string& text);

  const std::vector<Dimension>& dims() const { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  std::int64_t num_elements() const;
  bool contains(const std::string& name) const { return index_of(name) >= 0; }
  int index_of(const std::string& name) const;  // -1 if absent
  // The dimension called `name`; InputError "shape [batch:8, io:16] of <what> has no dimension 'x' (did you
  // mean ...)" when absent.
  const Dimension& at(const std::string& name, const std::string& what = "tensor") const;
  const Dimension& operator[](int i) const { return dims_.at(i); }
  std::vector<std::string> names() const;

  // Set algebra by name, keeping this shape's order. A dimension present in both with different sizes is an
  // InputError naming both.
  Shape minus(const Shape& other) const;
  Shape minus(const std::vector<std::string>& names) const;
  Shape union_with(const Shape& other) const;  // this shape's dims, then other's new ones
  bool is_subset_of(const Shape& other) const;

  bool operator==(const Shape& other) const { return dims_ == other.dims_; }
  bool operator!=(const Shape& other) const { return !(*this == other); }
  std::string to_string() const;  // "[batch:8, io:16]"

 private:
  std::vector<Dimension> dims_;
};

}  // namespace tpusim::mtf
