// The multiport torus allreduce: the bucket allreduce of bucket2d keeps only the links of the dimension it is
// working along busy, so on a d-dimensional torus it uses 2 of a chip's 2d links at a time. Here the data is
// cut into one part per torus dimension and every part runs its own bucket allreduce at the same time, part i
// starting along dimension i and taking the others in cyclic order: while the parts reduce-scatter their
// first dimension, every dimension's links carry one part in both directions, and the later, smaller phases
// overlap the same way. The chip's cores join each part's first dimension (a snake through core and that
// axis, as bucket2d's core+x), so the on-chip exchange happens inside the rings instead of before them. The
// reduce-scatter and allgather halves run the same parts, each a bucket reduce-scatter (allgather) in its own
// dimension order, on interleaved slices of the members' chunks (sim/index_map.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/composition.hpp"
#include "sim/index_map.hpp"

namespace tpusim::sim::algorithms {
namespace {

struct TorusShape {
  int cores = 1;                // size of the on-chip group dimension (1 when there is none)
  std::vector<int> torus_dims;  // group dimensions that run between chips
};

TorusShape torus_shape(const topo::Group& group, const topo::Topology& topology) {
  TorusShape shape;
  const bool on_chip = topo::first_dimension_on_chip(topology, group);
  if (on_chip) shape.cores = group.dims[0];
  for (std::size_t d = on_chip ? 1 : 0; d < group.dims.size(); ++d) shape.torus_dims.push_back(group.dims[d]);
  return shape;
}

// The group of part `first`: dimension 0 is the snake through (cores, torus dimension `first`), then the
// other torus dimensions in cyclic order from first + 1.
topo::Group rotated_group(const topo::Group& group, const TorusShape& shape, int first) {
  const int on_chip = shape.cores > 1 ? 1 : 0;
  const int torus = static_cast<int>(shape.torus_dims.size());
  std::vector<int> order;  // torus dimensions in the part's order
  for (int k = 0; k < torus; ++k) order.push_back((first + k) % torus);
  const auto snake = topo::snake_order({shape.cores, shape.torus_dims[first]});

  topo::Group rotated;
  rotated.dims.push_back(static_cast<int>(snake.size()));
  for (int k = 1; k < torus; ++k) rotated.dims.push_back(shape.torus_dims[order[k]]);
  rotated.ranks.reserve(group.ranks.size());
  std::vector<int> position(group.dims.size(), 0);
  std::vector<int> counter(rotated.dims.size(), 0);
  for (int p = 0; p < group.size(); ++p) {
    // counter: the rotated group's coordinates of position p, dimension 0 fastest.
    int rest = p;
    for (std::size_t d = 0; d < rotated.dims.size(); ++d) {
      counter[d] = rest % rotated.dims[d];
      rest /= rotated.dims[d];
    }
    if (on_chip) position[0] = snake[counter[0]][0];
    position[on_chip + order[0]] = snake[counter[0]][1];
    for (int k = 1; k < torus; ++k) position[on_chip + order[k]] = counter[k];
    rotated.ranks.push_back(group.at(position));
  }
  return rotated;
}

// The group with its dimensions in reverse order (dimension 0 last), the members' coordinates with them.
topo::Group reversed(const topo::Group& group) {
  const int dims = static_cast<int>(group.dims.size());
  topo::Group out;
  out.dims.assign(group.dims.rbegin(), group.dims.rend());
  out.ranks.resize(group.ranks.size());
  std::vector<int> coordinates(dims);
  for (int p = 0; p < group.size(); ++p) {
    int rest = p;
    for (int d = 0; d < dims; ++d) {
      coordinates[d] = rest % group.dims[d];
      rest /= group.dims[d];
    }
    int position = 0;  // the reversed group's dimension 0 is the group's last
    for (int d = 0; d < dims; ++d) position = position * group.dims[d] + coordinates[d];
    out.ranks[position] = group.ranks[p];
  }
  return out;
}

// The reduce-scatter or allgather: part j is the j-th of d slices of every member's chunk, laid out in part
// j's rotated group order (its position q's slice at virtual chunk q), so that the part's composition, which
// leaves virtual chunk q with position q, leaves each member with its own chunk's slice; the parts together
// give every member its whole chunk. A part's transfers stay contiguous in its virtual order: one message
// each, as in the allreduce.
Schedule multiport_half(CollectiveKind kind, const topo::Group& group, const AlgorithmInput& input) {
  const auto shape = torus_shape(group, input.topology);
  const int parts = static_cast<int>(shape.torus_dims.size());
  const int members = group.size();
  const ElementRange whole{0, input.request.elements};
  std::unordered_map<Rank, int> position_of;
  for (int p = 0; p < members; ++p) position_of.emplace(group.ranks[p], p);
  const std::vector<const LineOperations*> rings(parts, &bidir_ring_line);
  std::vector<Schedule> concurrent;
  for (int j = 0; j < parts; ++j) {
    // A composed reduce-scatter starts along the group's last dimension: the part's order is reversed so
    // that it starts with the snake through the cores, as the allreduce does, reducing the chip's cores'
    // data while it crosses the first torus dimension (two rings of one core each would carry it twice).
    const auto rotated = reversed(rotated_group(group, shape, j));
    std::vector<IndexMap::Piece> pieces;
    std::vector<std::uint64_t> starts{0};
    for (int q = 0; q < members; ++q) {
      const auto chunk = balanced_part(whole, members, position_of.at(rotated.ranks[q]));
      const auto slice = balanced_part(chunk, parts, j);
      pieces.push_back({starts.back(), slice.offset, slice.count});
      starts.push_back(starts.back() + slice.count);
    }
    concurrent.push_back(
        laid_out(compose_half(kind, rotated, rings, starts), std::make_shared<const IndexMap>(pieces)));
  }
  return concurrently(std::move(concurrent));
}

}  // namespace

std::string multiport_fits(const topo::Group& group, const AlgorithmInput& input) {
  const auto shape = torus_shape(group, input.topology);
  if (shape.torus_dims.size() >= 2) return "";
  return fmt::format(
      "multiport needs a group with one dimension per torus axis, at least two, and optionally the chip's "
      "cores first, e.g. --group-axes core,x,y; this group has {} dimension{} between chips",
      shape.torus_dims.size(), shape.torus_dims.size() == 1 ? "" : "s");
}

Schedule multiport_allreduce(const topo::Group& group, const AlgorithmInput& input) {
  const auto shape = torus_shape(group, input.topology);
  const int parts = static_cast<int>(shape.torus_dims.size());
  const ElementRange whole{0, input.request.elements};
  const std::vector<const LineOperations*> rings(parts, &bidir_ring_line);
  std::vector<Schedule> concurrent;
  for (int first = 0; first < parts; ++first) {
    concurrent.push_back(
        compose_allreduce(rotated_group(group, shape, first), rings, balanced_part(whole, parts, first)));
  }
  return concurrently(std::move(concurrent));
}

Schedule multiport_reduce_scatter(const topo::Group& group, const AlgorithmInput& input) {
  return multiport_half(CollectiveKind::reduce_scatter, group, input);
}

Schedule multiport_allgather(const topo::Group& group, const AlgorithmInput& input) {
  return multiport_half(CollectiveKind::allgather, group, input);
}

// Every part is bucket2d's composition on S/d bytes; when all torus dimensions have one size the parts have
// one shape and, running in lockstep on disjoint links, take the time of one.
ClosedForm multiport_closed_form(const ClosedFormInput& input) {
  const int on_chip = input.first_on_chip ? 1 : 0;
  const std::vector<int> torus(input.dims.begin() + std::min<std::size_t>(on_chip, input.dims.size()),
                               input.dims.end());
  if (torus.size() < 2) return {};
  const bool half = input.kind == CollectiveKind::reduce_scatter || input.kind == CollectiveKind::allgather;
  if (input.kind != CollectiveKind::allreduce && !half) return {};
  for (const int k : torus) {
    if (k != torus.front()) return {};
  }
  ClosedFormInput part = input;
  part.bytes = input.bytes / static_cast<double>(torus.size());
  part.dims = torus;
  if (on_chip) part.dims.front() *= input.dims.front();
  if (half) std::reverse(part.dims.begin(), part.dims.end());  // as multiport_half orders them
  ClosedForm form =
      composed_closed_form(part, std::vector<ClosedFormFunction>(torus.size(), bidir_ring_closed_form));
  form.exact_multiple = 2 * static_cast<std::uint64_t>(input.members()) * torus.size();
  if (form.time_s >= 0) {
    form.formula = fmt::format("bucket {} of S/d along each of d rotated dimension orders at once",
                               to_string(input.kind));
  }
  return form;
}

}  // namespace tpusim::sim::algorithms
