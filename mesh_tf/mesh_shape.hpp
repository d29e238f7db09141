#pragma once
// The mesh: an n-dimensional array of processors with named dimensions, e.g. "rows:16;cols:32". A naming
// abstraction over the cores of a pod; see mesh_mapping.hpp for where each processor lives physically.
//
// Processor numbering (Mesh-TensorFlow's convention): the logical processor index of coordinates (c0, ..,
// cn-1) is c_{n-1} + k_{n-1} * (c_{n-2} + k_{n-2} * (...)), i.e. the LAST mesh dimension varies fastest. This
// differs from the physical rank numbering of topologies/rank_mapping.hpp (core then x fastest);
// mesh_mapping.hpp maps one to the other.
#include <string>
#include <vector>

#include "mesh_tf/shape.hpp"

namespace tpusim::mtf {

class MeshShape {
 public:
  MeshShape() = default;  // the 1-processor mesh with no dimensions
  explicit MeshShape(Shape dims);
  // "rows:16;cols:32" (';' or ',' between dimensions); "" or "single" is the 1-processor mesh.
  static MeshShape parse(const std::string& text);

  const Shape& shape() const { return dims_; }
  int rank() const { return dims_.rank(); }
  int size() const { return static_cast<int>(dims_.num_elements()); }  // number of processors
  int dim_size(int mesh_dim) const { return static_cast<int>(dims_[mesh_dim].size); }
  const std::string& dim_name(int mesh_dim) const { return dims_[mesh_dim].name; }
  int index_of(const std::string& name) const { return dims_.index_of(name); }

  std::vector<int> processor_coords(int processor) const;
  int processor_index(const std::vector<int>& coords) const;

  std::string to_string() const;  // "rows:16;cols:32" (parse(to_string()) round-trips)

 private:
  Shape dims_;
};

}  // namespace tpusim::mtf
