#include "mesh_tf/weight_sharding.hpp"

#include <fmt/format.h>

#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

const NameTable<WeightShardingMode>& weight_sharding_modes() {
  static const NameTable<WeightShardingMode> table("weight sharding", {{"none", WeightShardingMode::none},
                                                                       {"update", WeightShardingMode::update},
                                                                       {"full", WeightShardingMode::full}});
  return table;
}

WeightSharding::WeightSharding(std::string mesh_dim, std::int64_t mesh_dim_size, LayoutRules rules)
    : mesh_dim_(std::move(mesh_dim)), mesh_dim_size_(mesh_dim_size), rules_(std::move(rules)) {
  if (mesh_dim_.empty()) throw InputError("weight sharding: the data-parallel mesh axis needs a name");
  if (mesh_dim_size_ < 1)
    throw InputError(fmt::format("weight sharding: mesh axis '{}' has size {}", mesh_dim_, mesh_dim_size_));
}

std::string WeightSharding::dim_to_shard(const Shape& shape) const {
  if (mesh_dim_size_ <= 1) return "";
  std::string best;
  std::int64_t best_size = 0;
  for (const auto& d : shape.dims()) {
    const auto mesh_dim = rules_.mesh_dim_for(d.name);
    if (mesh_dim && *mesh_dim == mesh_dim_) return "";  // split over the axis already
    if (!mesh_dim && d.size % mesh_dim_size_ == 0 && d.size > best_size) {
      best = d.name;
      best_size = d.size;
    }
  }
  return best;
}

std::string WeightSharding::shard_name(const std::string& dim) { return dim + "_shard"; }

LayoutRules WeightSharding::rules_with(const std::vector<std::string>& sharded_dims) const {
  auto rules = rules_.rules();
  for (const auto& dim : sharded_dims) {
    if (rules_.mesh_dim_for(shard_name(dim)))
      throw InputError(
          fmt::format("weight sharding: the layout already has a rule for '{}'", shard_name(dim)));
    rules.emplace_back(shard_name(dim), mesh_dim_);
  }
  return LayoutRules(rules);
}

}  // namespace tpusim::mtf
