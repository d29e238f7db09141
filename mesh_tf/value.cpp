#include <algorithm>

#include <fmt/format.h>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/program.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

Value make_value(int id, int tensor, const std::string& name, TensorLayout layout, DType dtype,
                 std::vector<int> pending, const MeshShape& mesh) {
  // The layout was checked when it was made: distinct mesh dims, even splits.
  const Shape shape = layout.shape();
  Value v(std::move(layout));
  v.id = id;
  v.tensor = tensor;
  v.name = name;
  v.dtype = dtype;
  std::sort(pending.begin(), pending.end());
  v.pending = std::move(pending);
  const std::int64_t slice_elements = v.layout.slice_elements();
  // What a core materialises is its slice, not the whole tensor (Graph::kMaxTensorElements bounds that).
  if (slice_elements > Graph::kMaxSliceElements) {
    std::vector<Dimension> slice;
    for (int i = 0; i < shape.rank(); ++i) slice.emplace_back(shape[i].name, v.layout.slice_sizes()[i]);
    throw InputError(
        fmt::format("tensor '{}' {}: its slice on each core {} would have {} elements, more than "
                    "the {} (2^40) a core may hold; split it over more mesh dimensions",
                    name, shape.to_string(), Shape(std::move(slice)).to_string(), slice_elements,
                    Graph::kMaxSliceElements));
  }
  for (int m = 0; m < mesh.rank(); ++m) {
    const bool split = v.layout.tensor_dim_on(m) >= 0;
    const bool partial = std::find(v.pending.begin(), v.pending.end(), m) != v.pending.end();
    TPUSIM_CHECK(!(split && partial));
    if (split || partial) {
      v.varying.push_back(m);
      v.num_slices *= mesh.dim_size(m);
    }
  }
  return v;
}

int Value::key_of(const std::vector<int>& coords, const MeshShape& mesh) const {
  int key = 0;
  for (const int m : varying) key = key * mesh.dim_size(m) + coords[m];
  return key;
}

std::vector<int> Value::coords_of_key(int key, const MeshShape& mesh) const {
  std::vector<int> coords(mesh.rank(), 0);
  for (std::size_t i = varying.size(); i-- > 0;) {
    const int m = varying[i];
    coords[m] = key % mesh.dim_size(m);
    key /= mesh.dim_size(m);
  }
  return coords;
}

std::int64_t Value::offset(int i, const std::vector<int>& mesh_coords) const {
  const int m = layout.mesh_dim_of(i);
  return m < 0 ? 0 : mesh_coords[m] * layout.slice_sizes()[i];
}

}  // namespace tpusim::mtf
