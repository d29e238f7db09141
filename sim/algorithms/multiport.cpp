// The multiport torus allreduce: the bucket allreduce of bucket2d keeps only the links of the dimension it is
// working along busy, so on a d-dimensional torus it uses 2 of a chip's 2d links at a time. Here the data is
// cut into one part per torus dimension and every part runs its own bucket allreduce at the same time, part i
// starting along dimension i and taking the others in cyclic order: while the parts reduce-scatter their
// first dimension, every dimension's links carry one part in both directions, and the later, smaller phases
// overlap the same way. The chip's cores join each part's first dimension (a snake through core and that
// axis, as bucket2d's core+x), so the on-chip exchange happens inside the rings instead of before them.
#include <fmt/format.h>

#include <algorithm>

#include "sim/algorithms/algorithms.hpp"
#include "sim/composition.hpp"

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

// Every part is bucket2d's composition on S/d bytes; when all torus dimensions have one size the parts have
// one shape and, running in lockstep on disjoint links, take the time of one.
ClosedForm multiport_closed_form(const ClosedFormInput& input) {
  const int on_chip = input.first_on_chip ? 1 : 0;
  const std::vector<int> torus(input.dims.begin() + std::min<std::size_t>(on_chip, input.dims.size()),
                               input.dims.end());
  if (input.kind != CollectiveKind::allreduce || torus.size() < 2) return {};
  for (const int k : torus) {
    if (k != torus.front()) return {};
  }
  ClosedFormInput part = input;
  part.bytes = input.bytes / static_cast<double>(torus.size());
  part.dims = torus;
  if (on_chip) part.dims.front() *= input.dims.front();
  ClosedForm form =
      composed_closed_form(part, std::vector<ClosedFormFunction>(torus.size(), bidir_ring_closed_form));
  form.exact_multiple = 2 * static_cast<std::uint64_t>(input.members()) * torus.size();
  if (form.time_s >= 0)
    form.formula = "2D bucket allreduce of S/d along each of d rotated dimension orders at once";
  return form;
}

}  // namespace tpusim::sim::algorithms
