#include "sim/algorithms/composition.hpp"

#include <algorithm>

#include "topologies/support/check.hpp"

namespace tpusim::sim {
namespace {

using algorithms::Line;

int stride_of(const topo::Group& group, int dimension) {
  int stride = 1;
  for (int d = 0; d < dimension; ++d) stride *= group.dims[d];
  return stride;
}

// Flat chunk interval [first, first + count) of the chunks starting at `starts`, as one range.
ElementRange flat_chunks(const std::vector<std::uint64_t>& starts, std::uint64_t first, std::uint64_t count) {
  return {starts[first], starts[first + count] - starts[first]};
}

// What each member of a line along `dimension` owns when the group's flat chunk q belongs to position q: the
// flat chunks whose coordinates from `dimension` up match the member's.
std::vector<ElementRange> flat_owned(const topo::Group& group, int dimension, const GroupLine& line,
                                     const std::vector<std::uint64_t>& starts) {
  const int stride = stride_of(group, dimension);
  // Coordinates above `dimension` of the line, as a flat offset; those below are zero for a flat interval.
  const int above = (line.base_position / (stride * group.dims[dimension])) * stride * group.dims[dimension];
  std::vector<ElementRange> owned;
  for (int t = 0; t < group.dims[dimension]; ++t) {
    owned.push_back(flat_chunks(starts, above + t * stride, stride));
  }
  return owned;
}

}  // namespace

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
                              const std::vector<const algorithms::LineOperations*>& per_dimension,
                              std::uint64_t elements) {
  if (kind == CollectiveKind::reduce_scatter || kind == CollectiveKind::allgather) {
    std::vector<std::uint64_t> starts;
    starts.reserve(group.size() + 1);
    for (const auto& chunk : balanced_split({0, elements}, group.size())) starts.push_back(chunk.offset);
    starts.push_back(elements);
    return compose_half(kind, group, per_dimension, starts);
  }
  TPUSIM_CHECK(kind == CollectiveKind::allreduce);
  return compose_allreduce(group, per_dimension, ElementRange{0, elements});
}

Schedule compose_half(CollectiveKind kind, const topo::Group& group,
                      const std::vector<const algorithms::LineOperations*>& per_dimension,
                      const std::vector<std::uint64_t>& starts) {
  const int dims = static_cast<int>(group.dims.size());
  TPUSIM_CHECK(static_cast<int>(per_dimension.size()) == dims);
  TPUSIM_CHECK(kind == CollectiveKind::reduce_scatter || kind == CollectiveKind::allgather);
  TPUSIM_CHECK(static_cast<int>(starts.size()) == group.size() + 1 && starts.front() == 0);
  TPUSIM_CHECK(std::is_sorted(starts.begin(), starts.end()));
  Schedule schedule;
  // Outermost dimension first for reduce-scatter (so that position q ends with flat chunk q), innermost
  // first for allgather.
  for (int step = 0; step < dims; ++step) {
    const int d = kind == CollectiveKind::reduce_scatter ? dims - 1 - step : step;
    std::vector<Schedule> parts;
    for (const auto& line : lines_along(group, d)) {
      const auto owned = flat_owned(group, d, line, starts);
      parts.push_back(kind == CollectiveKind::reduce_scatter
                          ? per_dimension[d]->reduce_scatter_to(line.ranks, owned)
                          : per_dimension[d]->allgather_from(line.ranks, owned));
    }
    schedule.then(concurrently(std::move(parts)));
  }
  return schedule;
}

Schedule compose_allreduce(const topo::Group& group,
                           const std::vector<const algorithms::LineOperations*>& per_dimension,
                           ElementRange range) {
  const int dims = static_cast<int>(group.dims.size());
  TPUSIM_CHECK(static_cast<int>(per_dimension.size()) == dims);
  Schedule schedule;
  std::vector<ElementRange> held(group.size(), range);
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

algorithms::ClosedForm composed_closed_form(
    const algorithms::ClosedFormInput& input,
    const std::vector<algorithms::ClosedFormFunction>& per_dimension) {
  const int dims = static_cast<int>(input.dims.size());
  TPUSIM_CHECK(static_cast<int>(per_dimension.size()) == dims && dims > 0);
  double total = 0, share = input.bytes;
  // One line of dimension d on the share left by the dimensions before it; none when it has no closed form.
  auto along = [&](int d, CollectiveKind kind) {
    if (per_dimension[d] == nullptr) return algorithms::ClosedForm{};
    return per_dimension[d]({kind, {input.dims[d]}, share, input.alpha, input.bandwidth});
  };
  algorithms::ClosedForm form;
  if (input.kind == CollectiveKind::allreduce) {
    for (int d = 0; d + 1 < dims; ++d) {
      const auto half = along(d, CollectiveKind::reduce_scatter);
      if (half.time_s < 0) return {};
      total += 2 * half.time_s;
      share /= input.dims[d];
    }
    const auto last = along(dims - 1, CollectiveKind::allreduce);
    if (last.time_s < 0) return {};
    total += last.time_s;
    form.formula = "sum over dimensions d<n of 2 RS_d(S/(k_0..k_{d-1})) + AR_n(S/(k_0..k_{n-1}))";
  } else if (input.kind == CollectiveKind::reduce_scatter || input.kind == CollectiveKind::allgather) {
    // Reduce-scatter runs the outermost dimension first on all the data; allgather ends with it.
    for (int d = dims - 1; d >= 0; --d) {
      const auto half = along(d, input.kind);
      if (half.time_s < 0) return {};
      total += half.time_s;
      share /= input.dims[d];
    }
    form.formula = "sum over dimensions of RS_d on the share left by the outer ones";
  } else {
    return {};
  }
  form.time_s = total;
  return form;
}

}  // namespace tpusim::sim
