#include "topologies/group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::topo {
namespace {

// Coordinates of position i of a boustrophedon walk over axes of the given sizes (fastest first).
std::vector<int> snake_position(long long i, const std::vector<int>& sizes, std::size_t count) {
  if (count == 1) return {static_cast<int>(i)};
  long long inner = 1;
  for (std::size_t a = 0; a + 1 < count; ++a) inner *= sizes[a];
  const long long top = i / inner;
  long long rest = i % inner;
  if (top % 2 == 1) rest = inner - 1 - rest;
  auto coords = snake_position(rest, sizes, count - 1);
  coords.push_back(static_cast<int>(top));
  return coords;
}

}  // namespace

Rank Group::at(const std::vector<int>& position) const {
  TPUSIM_CHECK(position.size() == dims.size());
  int index = 0;
  for (std::size_t d = dims.size(); d-- > 0;) {
    TPUSIM_CHECK(position[d] >= 0 && position[d] < dims[d]);
    index = index * dims[d] + position[d];
  }
  return ranks[index];
}

std::vector<std::vector<int>> snake_order(const std::vector<int>& axis_sizes) {
  TPUSIM_CHECK(!axis_sizes.empty());
  long long total = 1;
  for (const int size : axis_sizes) total *= size;
  std::vector<std::vector<int>> order;
  order.reserve(total);
  for (long long i = 0; i < total; ++i) order.push_back(snake_position(i, axis_sizes, axis_sizes.size()));
  return order;
}

std::vector<AxisSet> parse_group_axes(const Topology& topology, const std::string& text) {
  const auto axes = topology.axes();
  std::vector<AxisSet> dims;
  if (text == "all") {
    AxisSet merged;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      if (axes[a].size > 1) merged.push_back(static_cast<int>(a));
    }
    if (merged.empty()) merged.push_back(0);
    return {merged};
  }
  std::set<int> seen;
  for (const auto& dim_text : split(text, ',')) {
    AxisSet merged;
    for (const auto& axis_name : split(dim_text, '+')) {
      if (axis_name.empty()) {
        throw InputError(
            fmt::format("group axes '{}': empty axis name; expected e.g. 'core+x,y' or 'all'", text));
      }
      const int axis = topology.axis_index(axis_name);
      if (!seen.insert(axis).second) {
        throw InputError(fmt::format("group axes '{}': axis '{}' appears twice", text, axis_name));
      }
      merged.push_back(axis);
    }
    dims.push_back(merged);
  }
  if (dims.empty()) throw InputError("group axes: empty; expected e.g. 'core+x,y' or 'all'");
  return dims;
}

std::string describe_group_axes(const Topology& topology, const std::vector<AxisSet>& dims) {
  const auto axes = topology.axes();
  std::vector<std::string> parts;
  for (const auto& merged : dims) {
    std::vector<std::string> names;
    for (const int axis : merged) names.push_back(axes[axis].name);
    parts.push_back(join(names, "+"));
  }
  return join(parts, ",");
}

std::vector<Group> groups_along(const Topology& topology, const std::vector<AxisSet>& dims) {
  const auto axes = topology.axes();
  std::vector<bool> used(axes.size(), false);
  Group shape_only;
  std::vector<std::vector<std::vector<int>>> walks;  // per group dim: snake positions over its axes
  for (const auto& merged : dims) {
    std::vector<int> sizes;
    for (const int axis : merged) {
      TPUSIM_CHECK(axis >= 0 && axis < static_cast<int>(axes.size()) && !used[axis]);
      used[axis] = true;
      sizes.push_back(axes[axis].size);
    }
    walks.push_back(snake_order(sizes));
    shape_only.dims.push_back(static_cast<int>(walks.back().size()));
  }
  std::vector<int> free_axes;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (!used[a]) free_axes.push_back(static_cast<int>(a));
  }
  int group_size = 1;
  for (const int size : shape_only.dims) group_size *= size;
  const int group_count = topology.num_cores() / group_size;

  std::vector<Group> groups;
  for (int g = 0; g < group_count; ++g) {
    int base = 0, rest = g;
    for (const int axis : free_axes) {
      base += (rest % axes[axis].size) * axes[axis].stride;
      rest /= axes[axis].size;
    }
    Group group{shape_only.dims, {}};
    group.ranks.reserve(group_size);
    for (int p = 0; p < group_size; ++p) {
      int rank = base, index = p;
      for (std::size_t d = 0; d < dims.size(); ++d) {
        const auto& coords = walks[d][index % shape_only.dims[d]];
        index /= shape_only.dims[d];
        for (std::size_t k = 0; k < dims[d].size(); ++k) rank += coords[k] * axes[dims[d][k]].stride;
      }
      group.ranks.push_back(rank);
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

void validate_group(const Topology& topology, const Group& group) {
  // Multiplied only while it is at most the group's size (so below 2^62): a product that overflowed could
  // wrap round to a match.
  long long expected = 1;
  bool truncated = false;
  for (const int size : group.dims) {
    if (size < 1) throw InputError(fmt::format("group dimension size {} must be at least 1", size));
    if (expected > std::max(group.size(), 1)) {
      truncated = truncated || size > 1;
      continue;
    }
    expected *= size;
  }
  if (group.dims.empty() || expected != group.size()) {
    throw InputError(fmt::format("group has {} cores but its dimensions multiply to {}{}", group.size(),
                                 truncated ? "more than " : "", expected));
  }
  std::set<Rank> seen;
  for (const Rank rank : group.ranks) {
    if (rank < 0 || rank >= topology.num_cores()) {
      throw InputError(fmt::format("group names core {} but topology '{}' has cores 0..{}", rank,
                                   topology.name(), topology.num_cores() - 1));
    }
    if (!seen.insert(rank).second) throw InputError(fmt::format("group names core {} twice", rank));
  }
}

std::string per_axis_group_axes(const Topology& topology) {
  std::vector<std::string> names;
  for (const auto& axis : topology.axes()) {
    if (axis.size > 1) names.push_back(axis.name);
  }
  return names.empty() ? "all" : join(names, ",");
}

std::string default_group_axes(const Topology& topology, std::size_t algorithm_dimensions) {
  if (algorithm_dimensions < 2) return "all";
  const auto axes = topology.axes();
  std::vector<std::string> chip_axes;
  for (std::size_t a = 1; a < axes.size(); ++a) {
    if (axes[a].size > 1) chip_axes.push_back(axes[a].name);
  }
  const bool cores = topology.cores_per_chip() > 1;
  if (chip_axes.size() >= 2) {
    const std::string first = (cores ? "core+" : "") + chip_axes.front();
    chip_axes.erase(chip_axes.begin());
    return first + "," + join(chip_axes, "+");
  }
  if (chip_axes.size() == 1 && cores) return "core," + chip_axes.front();
  return "all";
}

bool first_dimension_on_chip(const Topology& topology, const Group& group) {
  if (group.dims.empty() || group.dims[0] < 2) return false;
  for (int position = 0; position < group.size(); ++position) {
    const int first = position - position % group.dims[0];
    if (chip_of(topology, group.ranks[position]) != chip_of(topology, group.ranks[first])) return false;
  }
  return true;
}

}  // namespace tpusim::topo
