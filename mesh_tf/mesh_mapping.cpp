#include "mesh_tf/mesh_mapping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "mesh_tf/tpu_tiling.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

// Whether the snake walk over `set` (fastest axis first) is a ring of neighbours: every step, the last back
// to the first included, between two cores of one chip or over one inter-chip link. On a twisted torus a walk
// whose slowest axis is twisted is not (its wraparound lands further along another axis). Tori, twisted ones
// too, look the same from every chip, and on a mesh the walk's steps do not depend on the coordinates off the
// set, so the walk from rank 0 answers for every line.
bool walks_a_physical_ring(const topo::Topology& topology, const std::vector<topo::PhysicalAxis>& axes,
                           const topo::AxisSet& set) {
  std::vector<int> sizes;
  for (const int a : set) sizes.push_back(axes[a].size);
  const auto walk = topo::snake_order(sizes);
  auto chip_at = [&](const std::vector<int>& along) {
    topo::Rank rank = 0;
    for (std::size_t k = 0; k < set.size(); ++k) rank += along[k] * axes[set[k]].stride;
    return topo::chip_of(topology, rank);
  };
  const int hops = 2 * static_cast<int>(topology.chip_dims().size());
  auto step_is_a_link = [&](std::size_t i) {
    const int from = chip_at(walk[i]), to = chip_at(walk[(i + 1) % walk.size()]);
    bool adjacent = from == to;
    for (int hop = 0; hop < hops && !adjacent; ++hop)
      adjacent = topo::neighbour_chip(topology, from, hop) == to;
    return adjacent;
  };
  // The closing step first: a snake's other steps move by one along one axis without wrapping, so it is the
  // one that fails, and orders that are not rings are rejected without walking a whole pod.
  if (!step_is_a_link(walk.size() - 1)) return false;
  for (std::size_t i = 0; i + 1 < walk.size(); ++i) {
    if (!step_is_a_link(i)) return false;
  }
  return true;
}

// Assigns every physical axis of size > 1 to a mesh dimension so that each mesh dimension's size is the
// product of its axes, and orders each dimension's axes so that its snake walk is a physical ring where some
// order is (the first such order from ascending axis order: on twisted tori the twisted axes must not be
// the slowest). Among the valid assignments, the ones with the fewest dimensions that are not rings win, then
// the fastest axes go to the last mesh dimensions (which vary fastest in the processor numbering). Returns
// false when no assignment exists.
bool factor_onto_axes(const MeshShape& mesh, const topo::Topology& topology,
                      std::vector<topo::AxisSet>& result) {
  const auto axes = topology.axes();
  std::vector<int> real_axes;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].size > 1) real_axes.push_back(static_cast<int>(a));
  }
  const int n_mesh = mesh.rank();
  if (n_mesh == 0) return real_axes.empty();
  long long combos = 1;
  for (std::size_t i = 0; i < real_axes.size(); ++i) combos *= n_mesh;
  if (combos > 1'000'000) return false;
  // An ascending axis set's ring order, or the set itself (and not a ring) when it has none.
  std::map<topo::AxisSet, std::pair<topo::AxisSet, bool>> ring_orders;
  auto ring_order = [&](const topo::AxisSet& set) {
    auto [at, inserted] = ring_orders.try_emplace(set, set, false);
    if (!inserted) return at->second;
    topo::AxisSet order = set;
    do {
      if (walks_a_physical_ring(topology, axes, order)) {
        at->second = {order, true};
        break;
      }
    } while (std::next_permutation(order.begin(), order.end()));
    return at->second;
  };
  std::vector<int> best;
  int best_broken = 0;
  std::vector<topo::AxisSet> best_sets;
  for (long long c = 0; c < combos; ++c) {
    std::vector<int> assign(real_axes.size());
    long long rest = c;
    for (auto& m : assign) {
      m = static_cast<int>(rest % n_mesh);
      rest /= n_mesh;
    }
    std::vector<long long> product(n_mesh, 1);
    for (std::size_t i = 0; i < real_axes.size(); ++i) product[assign[i]] *= axes[real_axes[i]].size;
    bool ok = true;
    for (int m = 0; m < n_mesh; ++m) ok = ok && product[m] == mesh.dim_size(m);
    if (!ok) continue;
    std::vector<topo::AxisSet> sets(n_mesh);
    for (std::size_t i = 0; i < real_axes.size(); ++i) sets[assign[i]].push_back(real_axes[i]);
    int broken = 0;
    for (auto& set : sets) {
      if (set.empty()) continue;
      const auto [order, ring] = ring_order(set);
      set = order;
      broken += ring ? 0 : 1;
    }
    if (best.empty() || broken < best_broken || (broken == best_broken && assign > best)) {
      best = assign;
      best_broken = broken;
      best_sets = std::move(sets);
    }
  }
  if (best.empty() && !real_axes.empty()) return false;
  result = real_axes.empty() ? std::vector<topo::AxisSet>(n_mesh) : best_sets;
  return true;
}

// The axes of an explicit assignment, per mesh dim, checked against the mesh and the topology.
std::vector<topo::AxisSet> assigned_axes(const MeshShape& mesh, const topo::Topology& topology,
                                         const MappingSpec& spec) {
  const auto axes = topology.axes();
  const std::string text = spec.to_string();
  std::vector<std::string> mesh_names;
  for (int m = 0; m < mesh.rank(); ++m) mesh_names.push_back(mesh.dim_name(m));
  std::vector<topo::AxisSet> result(mesh.rank());
  std::vector<bool> assigned(mesh.rank(), false);
  for (const auto& [dim, axis_names] : spec.assignment()) {
    const std::string rule = dim + "=" + join(axis_names, "+");
    const int m = mesh.index_of(dim);
    if (m < 0) {
      throw InputError(
          fmt::format("mesh mapping '{}': rule '{}' names mesh dimension '{}', but mesh {} has no "
                      "such dimension{}; its dimensions are {}",
                      text, rule, dim, mesh.to_string(), did_you_mean(dim, mesh_names), join(mesh_names)));
    }
    long long product = 1;
    std::vector<std::string> sizes;
    for (const auto& name : axis_names) {
      int a = -1;
      try {
        a = topology.axis_index(name);
      } catch (const InputError& error) {
        throw InputError(fmt::format("mesh mapping '{}': rule '{}': {}", text, rule, error.what()));
      }
      result[m].push_back(a);
      product *= axes[a].size;
      sizes.push_back(fmt::format("{} {}", name, axes[a].size));
    }
    if (product != mesh.dim_size(m)) {
      throw InputError(fmt::format(
          "mesh mapping '{}': rule '{}' gives mesh dimension '{}' of size {} physical axes of {} cores ({}); "
          "the axis sizes must multiply to the dimension's size",
          text, rule, dim, mesh.dim_size(m), product, join(sizes)));
    }
    assigned[m] = true;
  }
  for (int m = 0; m < mesh.rank(); ++m) {
    if (assigned[m] || mesh.dim_size(m) == 1) continue;
    std::vector<std::string> free_axes;
    for (const auto& axis : axes) {
      if (axis.size > 1) free_axes.push_back(fmt::format("{} {}", axis.name, axis.size));
    }
    throw InputError(fmt::format(
        "mesh mapping '{}': mesh dimension '{}' (size {}) is not assigned; give every mesh dimension its "
        "physical axes (the axes of {} and their sizes: {})",
        text, mesh.dim_name(m), mesh.dim_size(m), topology.name(), join(free_axes)));
  }
  return result;
}

}  // namespace

MeshMapping::MeshMapping(const MeshShape& mesh) : mesh_(mesh) {
  for (int p = 0; p < mesh.size(); ++p) {
    ranks_.push_back(p);
    processors_.push_back(p);
  }
}

MeshMapping::MeshMapping(const MeshShape& mesh, const topo::Topology& topology, const MappingSpec& spec)
    : mesh_(mesh), spec_(spec) {
  if (mesh.size() != topology.num_cores()) {
    throw InputError(fmt::format("mesh {} has {} cores but the topology {} has {}", mesh.to_string(),
                                 mesh.size(), topology.name(), topology.num_cores()));
  }
  topology_name_ = topology.name();
  const auto axes = topology.axes();
  for (const auto& axis : axes) axis_names_.push_back(axis.name);
  ranks_.assign(mesh.size(), 0);
  processors_.assign(mesh.size(), 0);
  switch (spec.kind()) {
    case MappingSpec::Kind::rings:
      factored_ = factor_onto_axes(mesh, topology, axes_);
      break;
    case MappingSpec::Kind::linear:
      factored_ = false;
      break;
    case MappingSpec::Kind::axes:
      axes_ = assigned_axes(mesh, topology, spec);
      factored_ = true;
      break;
  }
  if (!factored_) axes_.clear();
  if (!factored_ && spec.kind() == MappingSpec::Kind::rings) {
    if (auto tiling = tpu_tiling(mesh, topology)) {
      tiling_note_ = std::move(tiling->note);
      for (int p = 0; p < mesh.size(); ++p) {
        ranks_[p] = tiling->ranks[p];
        processors_[ranks_[p]] = p;
      }
      return;
    }
  }
  std::vector<std::vector<std::vector<int>>> walks(mesh.rank());
  if (factored_) {
    for (int m = 0; m < mesh.rank(); ++m) {
      std::vector<int> sizes;
      for (const int a : axes_[m]) sizes.push_back(axes[a].size);
      if (!sizes.empty()) walks[m] = topo::snake_order(sizes);
    }
  }
  for (int p = 0; p < mesh.size(); ++p) {
    topo::Rank rank = p;
    if (factored_) {
      rank = 0;
      const auto coords = mesh.processor_coords(p);
      for (int m = 0; m < mesh.rank(); ++m) {
        if (axes_[m].empty()) continue;
        const auto& along = walks[m][coords[m]];
        for (std::size_t k = 0; k < axes_[m].size(); ++k) rank += along[k] * axes[axes_[m][k]].stride;
      }
    }
    ranks_[p] = rank;
    processors_[rank] = p;
  }
}

std::string MeshMapping::note() const {
  if (topology_name_.empty()) return "no topology: processor i is rank i";
  if (spec_.kind() == MappingSpec::Kind::linear) {
    return "linear: processor i is rank i, so mesh dimensions are not physical rings";
  }
  if (!tiling_note_.empty()) return tiling_note_;
  if (!factored_) {
    return fmt::format(
        "linear assignment: mesh {} neither factors onto the axes of {} nor tiles it as Mesh-TensorFlow "
        "does; processor i is rank i, so mesh dimensions are not physical rings",
        mesh_.to_string(), topology_name_);
  }
  std::vector<std::string> parts;
  for (int m = mesh_.rank() - 1; m >= 0; --m) {
    std::vector<std::string> names;
    for (const int a : axes_[m]) names.push_back(axis_names_[a]);
    parts.push_back(fmt::format("{} = {}", mesh_.dim_name(m), names.empty() ? "-" : join(names, "+")));
  }
  return join(parts, ", ");
}

std::vector<topo::Group> MeshMapping::groups(const std::vector<int>& mesh_dims) const {
  std::vector<bool> in_group(mesh_.rank(), false);
  topo::Group shape;
  int group_size = 1;
  for (const int m : mesh_dims) {
    TPUSIM_CHECK(m >= 0 && m < mesh_.rank() && !in_group[m]);
    in_group[m] = true;
    shape.dims.push_back(mesh_.dim_size(m));
    group_size *= mesh_.dim_size(m);
  }
  if (mesh_dims.empty()) shape.dims.push_back(1);
  const int count = mesh_.size() / group_size;
  std::vector<topo::Group> groups(count, topo::Group{shape.dims, std::vector<topo::Rank>(group_size)});
  for (int p = 0; p < mesh_.size(); ++p) {
    const auto coords = mesh_.processor_coords(p);
    int group = 0, position = 0;
    for (int m = 0; m < mesh_.rank(); ++m) {
      if (!in_group[m]) group = group * mesh_.dim_size(m) + coords[m];
    }
    for (std::size_t k = mesh_dims.size(); k-- > 0;) {
      position = position * mesh_.dim_size(mesh_dims[k]) + coords[mesh_dims[k]];
    }
    groups[group].ranks[position] = ranks_[p];
  }
  return groups;
}

}  // namespace tpusim::mtf
