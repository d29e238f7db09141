#pragma once
// Groups of cores that take part in one collective. A group has one or more dimensions; each dimension
// merges one or more physical axes ("core+x"), walked in snake (boustrophedon) order so that consecutive
// positions, and the last and first, are physical neighbours wherever the topology allows it. Collectives
// over "the cores along some axes" run one group per combination of the remaining axes, all at once.
#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace tpusim::topo {

using AxisSet = std::vector<int>;  // physical axis indices merged into one group dimension, fastest first

struct Group {
  std::vector<int> dims;    // size of each group dimension
  std::vector<Rank> ranks;  // position p = i0 + d0 * (i1 + d1 * ...) holds ranks[p]
  int size() const { return static_cast<int>(ranks.size()); }
  Rank at(const std::vector<int>& position) const;
};

// Parses "core+x,y" (dimensions separated by ',', merged axes by '+'); "all" means every axis of size > 1
// merged into one dimension. Throws InputError for unknown or repeated axes.
std::vector<AxisSet> parse_group_axes(const Topology& topology, const std::string& text);
std::string describe_group_axes(const Topology& topology, const std::vector<AxisSet>& axes);
// Every axis of size > 1 as a dimension of its own ("core,x,y" on a 2D pod of two-core chips; "all" when
// there is none): the groups of algorithms that need one dimension per physical axis.
std::string per_axis_group_axes(const Topology& topology);
// The group axes an algorithm of `algorithm_dimensions` group dimensions runs on by default. Two (a
// two-dimensional algorithm, or one name per dimension for two): "core+x,y", every further chip axis merged
// into the last ("core+x,y+z"); on a 1D topology with several cores per chip, "core,x". Otherwise "all":
// every axis of size > 1 merged in snake order, so that ring neighbours are one hop apart.
std::string default_group_axes(const Topology& topology, std::size_t algorithm_dimensions);

// The positions along the merged axes in snake order: element i is the coordinate along each axis of set.
std::vector<std::vector<int>> snake_order(const std::vector<int>& axis_sizes);

// Every group spanned by `dims`, one per combination of the axes not named; groups are disjoint and
// together cover all cores.
std::vector<Group> groups_along(const Topology& topology, const std::vector<AxisSet>& dims);

// Checks that a hand-written group names existing, distinct cores (InputError otherwise).
void validate_group(const Topology& topology, const Group& group);

// Whether group dimension 0 has two or more members and each of its lines lies on one chip (the group was
// built with the core axis alone first, as in "core,x,y").
bool first_dimension_on_chip(const Topology& topology, const Group& group);

}  // namespace tpusim::topo
