#pragma once
// Weight sharding over the data-parallel mesh axis, one mechanism at two depths (config
// training.weight_sharding):
//   update  weight-update sharding (Xu et al., "Automatic Cross-Replica Sharding of Weight Update in
//           Data-Parallel Training", arXiv 2004.13336; Google's MLPerf v0.6+ TPU submissions): a variable
//           replicated over the axis has its gradient reduce-scattered over it rather than allreduced, its
//           update (and its optimizer slots) computed on 1/N of it per core, and the updated weights
//           all-gathered (optimizer.hpp).
//   full    fully sharded weights (ZeRO-3, Rajbhandari et al. 2020, arXiv 1910.02054; PyTorch FSDP, Zhao et
//           al. 2023, arXiv 2304.11277; GSPMD's 2D weight sharding, Xu et al. 2021, arXiv 2105.04663 §3.3):
//           the variable itself is stored split over the axis (1/N of its bytes per core at rest, and so
//           are its gradient and optimizer slots); each forward use reads an all-gathered copy, the
//           backward pass gathers it again where it reads it (FSDP's default, reshard_after_forward: the
//           forward copy is freed after its last forward reader rather than held across the step), the
//           gradient is reduce-scattered into the shard, and the optimizer updates the local shard with
//           no gather after it (graph.hpp Graph::shard_variables, autodiff.cpp).
// Written in Mesh-TensorFlow terms, both rename the variable's dim `d` to `d_shard`, which a layout rule
// `d_shard:<axis>` splits; the renames that cross between the two are lowered as XLA lowers them
// (mesh_tf/ops/reshape.cpp): a gradient pending over the axis reduce-scattered, a gather an all-gather.
//
// Which dim: the largest of the variable's dims that no layout rule splits and whose size the axis divides
// (the first of equals), as FSDP and GSPMD shard each weight along one dimension. A variable already split
// over the axis, or with no such dim, stays replicated over it (its gradient keeps the plain allreduce).
#include <cstdint>
#include <string>
#include <vector>

#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/shape.hpp"
#include "topologies/support/name_table.hpp"

namespace tpusim::mtf {

enum class WeightShardingMode { none, update, full };
const NameTable<WeightShardingMode>& weight_sharding_modes();  // "none", "update", "full"

class WeightSharding {
 public:
  // `rules` are the layout the variables would get without sharding. InputError for an empty axis name or
  // a size below 1.
  WeightSharding(std::string mesh_dim, std::int64_t mesh_dim_size, LayoutRules rules);

  const std::string& mesh_dim() const { return mesh_dim_; }
  std::int64_t mesh_dim_size() const { return mesh_dim_size_; }
  const LayoutRules& rules() const { return rules_; }

  // The dim of a variable of `shape` to shard (the rule above), or "" for none.
  std::string dim_to_shard(const Shape& shape) const;
  // d -> d_shard: the name the sharded dim takes.
  static std::string shard_name(const std::string& dim);
  // The rules plus "d_shard:<axis>" for every dim of `sharded_dims` (InputError when the layout already has
  // a rule for a d_shard name).
  LayoutRules rules_with(const std::vector<std::string>& sharded_dims) const;

 private:
  std::string mesh_dim_;
  std::int64_t mesh_dim_size_;
  LayoutRules rules_;
};

}  // namespace tpusim::mtf
