#pragma once
// The forms of mesh.shape that let a mesh follow its topology, so that a sweep over topologies needs no mesh
// per point:
//   batch:16;model:32   fixed sizes (mtf::MeshShape::parse)
//   batch:*;model:32    one size is '*': the cores the other sizes leave (16 on the 512-core tpu-v2-pod)
//   from_mapping        each mesh axis as large as the physical axes mesh.mapping gives it: with
//                       model=core+x;batch=y, batch:16;model:32 on tpu-v2-pod and batch:4;model:8 on
//                       tpu-v2-32
#include <string>

#include "mesh_tf/mapping_spec.hpp"
#include "mesh_tf/mesh_shape.hpp"
#include "topologies/topology.hpp"

namespace tpusim::workloads {

inline const char* shape_from_mapping_word() { return "from_mapping"; }

// Fixed sizes, or one '*' that takes the cores the others leave. InputError naming the text when '*' is given
// twice or has no whole size; a malformed mesh is mtf::MeshShape::parse's error.
mtf::MeshShape mesh_shape_for(const std::string& text, const topo::Topology& topology);

// The mesh an explicit assignment spans: each mesh axis the product of the sizes of its physical axes. The
// axes are ordered as a linear mapping would number them (the axis holding the slowest physical axis first),
// so model=core+x;batch=y and batch=y;model=core+x both give batch:16;model:32 on tpu-v2-pod. InputError
// naming the mapping for an unknown physical axis, or one of size > 1 left to no mesh axis (the mesh would
// not cover the pod). `mapping` is of kind axes.
mtf::MeshShape mesh_shape_from_mapping(const mtf::MappingSpec& mapping, const topo::Topology& topology);

}  // namespace tpusim::workloads
