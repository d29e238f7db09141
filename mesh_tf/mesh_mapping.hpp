#pragma once
// Where each logical mesh processor lives on the physical pod, by a MappingSpec (mapping_spec.hpp). rings
// (the default) gives each mesh dimension a set of physical axes (topologies/group.hpp AxisSet), walked in
// snake order, so that every mesh dimension is a physically connected ring, as Mesh-TensorFlow did on TPU
// pods: mesh "batch:16;model:32" on tpu-v2-pod (core:2, x:16, y:16) gives model = core+x and batch = y. The
// axes of a dimension are ordered so that the walk closes over one link where some order does (on twisted
// tori a twisted axis must not be the slowest: model = x+y+core on tpu-v4-4x4x8-twisted), and assignments
// where every dimension is such a ring are preferred. When
// the sizes do not factor onto whole axes, the pod is cut into tiles as Mesh-TensorFlow does (tpu_tiling.hpp:
// batch:64;model:8 puts model on 2x2-chip tiles and batch on the ring of 8x8 tiles); where that does not
// apply either, processors are assigned linearly (rank = logical processor index) and note() says so. linear
// always assigns so; an explicit assignment names the axes of every mesh dimension.
#include <string>
#include <vector>

#include "mesh_tf/mapping_spec.hpp"
#include "mesh_tf/mesh_shape.hpp"
#include "topologies/group.hpp"
#include "topologies/topology.hpp"

namespace tpusim::mtf {

class MeshMapping {
 public:
  // InputError "mesh batch:16;model:30 has 480 cores but the topology tpu-v2-pod has 512" on a size mismatch;
  // for an explicit assignment, InputError naming the mesh dimension and the rule when a dimension is
  // missing, an axis is unknown or the axis sizes do not multiply to the dimension's size.
  MeshMapping(const MeshShape& mesh, const topo::Topology& topology, const MappingSpec& spec = {});
  // Without a topology: rank = logical processor index (used when no interconnect is simulated).
  explicit MeshMapping(const MeshShape& mesh);

  const MeshShape& mesh() const { return mesh_; }
  const MappingSpec& spec() const { return spec_; }
  bool factored() const { return factored_; }
  // Per mesh dim the physical axes it spans (empty when linear or without a topology).
  const std::vector<topo::AxisSet>& axes() const { return axes_; }
  // "model = core+x, batch = y", "tiled as Mesh-TensorFlow does: ...", "linear: ..." or "linear assignment:
  // ..."
  std::string note() const;

  topo::Rank rank_of(int processor) const { return ranks_[processor]; }
  int processor_of(topo::Rank rank) const { return processors_[rank]; }

  // The groups of a collective over `mesh_dims` (ascending): one per combination of the other mesh
  // coordinates; group dims = sizes of mesh_dims; group position (i0 + d0*(i1 + ...)) = coordinates along
  // mesh_dims, so position along a dim equals the mesh coordinate.
  std::vector<topo::Group> groups(const std::vector<int>& mesh_dims) const;

 private:
  MeshShape mesh_;
  MappingSpec spec_;
  bool factored_ = false;
  std::string topology_name_;
  std::string tiling_note_;  // set when the processors are placed by tpu_tiling
  std::vector<std::string> axis_names_;
  std::vector<topo::AxisSet> axes_;
  std::vector<topo::Rank> ranks_;
  std::vector<int> processors_;
};

}  // namespace tpusim::mtf
