#pragma once
// Collectives composed dimension by dimension over a multi-dimensional group: an allreduce reduce-scatters
// along the first dimensions, allreduces along the last on its share of the data, and allgathers back (the 2D
// bucket algorithm is this with bidirectional rings on two dimensions). Every dimension has its own line
// algorithm; all lines of a dimension run at once.
#include <vector>

#include "sim/algorithms/algorithm_parts.hpp"

namespace tpusim::sim {

// kind is allreduce, reduce_scatter or allgather; one algorithm per group dimension.
Schedule compose_by_dimension(CollectiveKind kind, const topo::Group& group,
                              const std::vector<const algorithms::LineOperations*>& per_dimension,
                              std::uint64_t elements);

// The reduce-scatter or allgather of that composition with chunk q of position q the range [starts[q],
// starts[q + 1]) rather than a balanced share (starts: group.size() + 1 ascending offsets from 0).
Schedule compose_half(CollectiveKind kind, const topo::Group& group,
                      const std::vector<const algorithms::LineOperations*>& per_dimension,
                      const std::vector<std::uint64_t>& starts);

// The allreduce of that composition on one element range of every member's buffer (the others untouched):
// what an algorithm that runs several compositions at once on parts of the data builds on.
Schedule compose_allreduce(const topo::Group& group,
                           const std::vector<const algorithms::LineOperations*>& per_dimension,
                           ElementRange range);

// The closed form of such a composition (input.dims the group's dimensions, input.kind the collective) from
// the closed forms of its line algorithms, one per dimension: an allreduce is 2 RS_d on the share left by the
// dimensions before d, then AR on the last; a reduce-scatter or allgather is RS_d from the outermost
// dimension in. None when a dimension's algorithm has none.
algorithms::ClosedForm composed_closed_form(const algorithms::ClosedFormInput& input,
                                            const std::vector<algorithms::ClosedFormFunction>& per_dimension);

// The ranks along dimension d of the group, one line per combination of the other coordinates, each with the
// group position of its first member.
struct GroupLine {
  int base_position;
  algorithms::Line ranks;
};
std::vector<GroupLine> lines_along(const topo::Group& group, int dimension);

}  // namespace tpusim::sim
