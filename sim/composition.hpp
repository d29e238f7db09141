#pragma once
// Collectives composed dimension by dimension over a multi-dimensional group: an allreduce reduce-scatters
// along the first dimensions, allreduces along the last on its share of the data, and allgathers back (the 2D
// bucket algorithm is this with bidirectional rings on two dimensions). Every dimension has its own line
// algorithm; all lines of a dimension run at once.
#include <string>
#include <vector>

#include "sim/algorithms/algorithms.hpp"

namespace tpusim::sim {

struct LineAlgorithm {
  const char* name;
  // Reduce-scatter of `range`, the algorithm choosing which chunk each position keeps (returned in owned).
  Schedule (*reduce_scatter)(const algorithms::Line&, ElementRange, std::vector<ElementRange>& owned);
  // The inverse: allgather of what reduce_scatter left in owned.
  Schedule (*allgather)(const algorithms::Line&, const std::vector<ElementRange>& owned);
  Schedule (*allreduce)(const algorithms::Line&, ElementRange);
  // Reduce-scatter to / allgather from a given assignment; nullptr when the algorithm must choose it.
  Schedule (*reduce_scatter_to)(const algorithms::Line&, const std::vector<ElementRange>& owned);
  Schedule (*allgather_from)(const algorithms::Line&, const std::vector<ElementRange>& owned);
  // reduce_scatter (the algorithm choosing) needs a power-of-two line: then a composed allreduce can use
  // this algorithm on other sizes only along its last dimension.
  bool splits_only_powers_of_two;
};

const std::vector<LineAlgorithm>& line_algorithms();
const LineAlgorithm* find_line_algorithm(const std::string& name);

// kind is allreduce, reduce_scatter or allgather; one algorithm per group dimension.
Schedule compose_by_dimension(CollectiveKind kind, const topo::Group& group,
                              const std::vector<const LineAlgorithm*>& per_dimension, std::uint64_t elements);

// The ranks along dimension d of the group, one line per combination of the other coordinates, each with the
// group position of its first member.
struct GroupLine {
  int base_position;
  algorithms::Line ranks;
};
std::vector<GroupLine> lines_along(const topo::Group& group, int dimension);

}  // namespace tpusim::sim
