#include "sim/composition.hpp"

#include "topologies/support/check.hpp"

namespace tpusim::sim {
namespace {

using algorithms::Line;

std::vector<ElementRange> ring_owned_split(const Line& line, ElementRange range,
                                           std::vector<ElementRange>& owned) {
  owned = balanced_split(range, line.size());
  return owned;
}

Schedule ring_rs(const Line& line, ElementRange range, std::vector<ElementRange>& owned) {
  return algorithms::ring_reduce_scatter(line, ring_owned_split(line, range, owned));
}
Schedule bidir_rs(const Line& line, ElementRange range, std::vector<ElementRange>& owned) {
  return algorithms::bidir_ring_reduce_scatter(line, ring_owned_split(line, range, owned));
}

int stride_of(const topo::Group& group, int dimension) {
  int stride = 1;
  for (int d = 0; d < dimension; ++d) stride *= group.dims[d];
  return stride;
}

// Flat chunk interval [first, first + count) of `parts` balanced chunks of [0, elements), as one range.
ElementRange flat_chunks(std::uint64_t elements, std::uint64_t parts, std::uint64_t first,
                         std::uint64_t count) {
  const ElementRange whole{0, elements};
  const auto lo = balanced_part(whole, parts, first);
  const auto hi = balanced_part(whole, parts, first + count - 1);
  return {lo.offset, hi.end() - lo.offset};
}

// What each member of a line along `dimension` owns when the group's flat chunk q belongs to position q: the
// flat chunks whose coordinates from `dimension` up match the member's.
std::vector<ElementRange> flat_owned(const topo::Group& group, int dimension, const GroupLine& line,
                                     std::uint64_t elements) {
  const int stride = stride_of(group, dimension);
  // Coordinates above `dimension` of the line, as a flat offset; those below are zero for a flat interval.
  const int above = (line.base_position / (stride * group.dims[dimension])) * stride * group.dims[dimension];
  std::vector<ElementRange> owned;
  for (int t = 0; t < group.dims[dimension]; ++t) {
    owned.push_back(flat_chunks(elements, group.size(), above + t * stride, stride));
  }
  return owned;
}

}  // namespace

const std::vector<LineAlgorithm>& line_algorithms() {
  static const std::vector<LineAlgorithm> table = {
      {"ring", ring_rs, algorithms::ring_allgather, algorithms::ring_allreduce,
       algorithms::ring_reduce_scatter, algorithms::ring_allgather, false},
      {"bidir_ring", bidir_rs, algorithms::bidir_ring_allgather, algorithms::bidir_ring_allreduce,
       algorithms::bidir_ring_reduce_scatter, algorithms::bidir_ring_allgather, false},
      {"halving_doubling", algorithms::halving_doubling_reduce_scatter,
       algorithms::halving_doubling_allgather, algorithms::halving_doubling_allreduce,
       algorithms::halving_doubling_reduce_scatter_to, algorithms::halving_doubling_allgather_from, true},
  };
  return table;
}

const LineAlgorithm* find_line_algorithm(const std::string& name) {
  for (const auto& entry : line_algorithms()) {
    if (name == entry.name) return &entry;
  }
  return nullptr;
}

std::vector<GroupLine> lines_along(const topo::Group& group, int dimension) {
  const int stride = stride_of(group, dimension);
  const int size = group.dims[dimension];
  std::vector<GroupLine> lines;
  for (int position = 0; position < group.size(); ++position) {
    if ((position / stride) % size != 0) continue;
    GroupLine line{position, {}};
    for (int t = 0; t < size; ++t) line.ranks.push_back(group.ranks[position + t * stride]);
    lines.push_back(std::move(line));
  }
  return lines;
}

Schedule compose_by_dimension(CollectiveKind kind, const topo::Group& group,
                              const std::vector<const LineAlgorithm*>& per_dimension,
                              std::uint64_t elements) {
  const int dims = static_cast<int>(group.dims.size());
  TPUSIM_CHECK(static_cast<int>(per_dimension.size()) == dims);
  Schedule schedule;
  if (kind == CollectiveKind::reduce_scatter || kind == CollectiveKind::allgather) {
    // Outermost dimension first for reduce-scatter (so that position q ends with flat chunk q), innermost
    // first for allgather.
    for (int step = 0; step < dims; ++step) {
      const int d = kind == CollectiveKind::reduce_scatter ? dims - 1 - step : step;
      std::vector<Schedule> parts;
      for (const auto& line : lines_along(group, d)) {
        const auto owned = flat_owned(group, d, line, elements);
        parts.push_back(kind == CollectiveKind::reduce_scatter
                            ? per_dimension[d]->reduce_scatter_to(line.ranks, owned)
                            : per_dimension[d]->allgather_from(line.ranks, owned));
      }
      schedule.then(concurrently(std::move(parts)));
    }
    return schedule;
  }
  TPUSIM_CHECK(kind == CollectiveKind::allreduce);
  std::vector<ElementRange> held(group.size(), ElementRange{0, elements});
  std::vector<std::vector<std::vector<ElementRange>>> owned_by_level(dims);
  for (int d = 0; d + 1 < dims; ++d) {
    std::vector<Schedule> parts;
    const int stride = stride_of(group, d);
    for (const auto& line : lines_along(group, d)) {
      std::vector<ElementRange> owned;
      parts.push_back(per_dimension[d]->reduce_scatter(line.ranks, held[line.base_position], owned));
      for (int t = 0; t < group.dims[d]; ++t) held[line.base_position + t * stride] = owned[t];
      owned_by_level[d].push_back(std::move(owned));
    }
    schedule.then(concurrently(std::move(parts)));
  }
  {
    std::vector<Schedule> parts;
    for (const auto& line : lines_along(group, dims - 1)) {
      parts.push_back(per_dimension[dims - 1]->allreduce(line.ranks, held[line.base_position]));
    }
    schedule.then(concurrently(std::move(parts)));
  }
  for (int d = dims - 2; d >= 0; --d) {
    std::vector<Schedule> parts;
    const auto lines = lines_along(group, d);
    for (std::size_t l = 0; l < lines.size(); ++l) {
      parts.push_back(per_dimension[d]->allgather(lines[l].ranks, owned_by_level[d][l]));
    }
    schedule.then(concurrently(std::move(parts)));
  }
  return schedule;
}

}  // namespace tpusim::sim
