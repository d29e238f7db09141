#pragma once
// A model size that grows with the mesh, for weak scaling: a size key (model.d_ff, model.batch, ...) written
//   {per: model, value: 8192}      is 8192 for each processor along mesh axis `model`: 8192 x its size
//   {per: [batch, model], value: 1} multiplies the sizes of several mesh axes
//   {per: cores, value: 2}         is 2 per core: 2 x every processor of the mesh
// so the paper's LM sizes (d_ff 8192 and heads 8 per `model` processor) or a batch per `batch` processor
// follow the mesh a topology gets. A plain number is the size whatever the mesh (strong scaling). The
// resolved config holds the product.
#include <cstdint>

#include "mesh_tf/mesh_shape.hpp"
#include "workloads/config/config_node.hpp"

namespace tpusim::workloads {

inline const char* per_cores_word() { return "cores"; }

// True for a value written in the map form above.
bool is_scaled_size(const ConfigNode& value);
// The size `value` (the map form) gives on `mesh`. Problems are located at the map's keys: unknown keys, an
// axis the mesh does not have (with a suggestion), an axis named twice, a value that is not a whole number
// of at least 1, a product too large for 64 bits.
std::int64_t scaled_size(const ConfigNode& value, const mtf::MeshShape& mesh);

}  // namespace tpusim::workloads
