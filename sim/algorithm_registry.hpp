#pragma once
// The one table of collective algorithms: a row per (collective, algorithm) carries everything about it, and
// every user reads the row rather than the name: the schedule builder (the simulator and the predictions),
// the closed form (bounds), the kind's default (the request builder and the engine), the group shape (default
// group axes, validate), and the list the command line prints. A new algorithm is one file in
// sim/algorithms/, its exports in sim/algorithms/algorithms.hpp, one row in sim/algorithm_table.cpp and one
// line in sim/CMakeLists.txt. No SimGrid in this header.
#include <string>
#include <vector>

#include "sim/algorithms/algorithm_parts.hpp"
#include "sim/collective.hpp"
#include "sim/schedule.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

enum class GroupShape {
  any,              // runs on any group, flattened in group order
  two_dimensional,  // needs a group of exactly two dimensions
  per_dimension,    // runs on any group flattened, or may be named once per group dimension and composed
  per_axis,         // made for a group with one dimension per physical axis ("core,x,y"), its default; the
                    // row's fit check, if any, says which groups it needs
};
const char* to_string(GroupShape shape);

// Whether `auto` (algorithm_choice.hpp) may choose a row. Every row says it (the field comes before the group
// shape, so a row without it does not compile): a row auto may choose can change the results of every run
// that uses auto wherever it is faster (CONTRIBUTING.md, "How to add a collective algorithm", says how to
// record that); one it never chooses changes nothing that does not name it.
enum class AutoEligibility { may_choose, never };

struct AlgorithmRow {
  CollectiveKind kind;
  const char* name;
  const char* description;
  bool is_default;  // the kind's algorithm when none is named; exactly one per kind
  AutoEligibility auto_choice;
  GroupShape shape;
  // Why a group of the right shape does not fit (e.g. an element count it cannot split); nullptr: all fit.
  algorithms::FitCheck fits;
  // The schedule of one group; nullptr for per_dimension rows, which the line operations build.
  algorithms::Builder build;
  // closed form (sim/README.md, Closed forms); nullptr when the algorithm has none (predictions then say so,
  // never borrowing another algorithm's). A per_dimension row's answers for its kind on any group and, along
  // one line, for reduce_scatter too: a composed allreduce reduce-scatters and allgathers along the outer
  // dimensions.
  algorithms::ClosedFormFunction closed_form;
  // The line operations of a per_dimension row, else nullptr.
  const algorithms::LineOperations* line;
  // Built on neighbour links (rings, chains): on a pod with links down (topologies/faults.hpp) a transfer
  // whose healthy route crosses one makes the algorithm impossible there, rather than silently detoured.
  bool needs_neighbour_links = false;
  // Runs only on multislice pods (topologies/multislice.hpp): a single pod refuses it, saying so.
  bool needs_multislice = false;

  bool auto_may_choose() const { return auto_choice == AutoEligibility::may_choose; }
};

// Every row, grouped by kind, in the order `tpusim collective --list-algorithms` prints them. The table's
// invariants (one default per kind, distinct names, line operations exactly on per_dimension rows) are
// checked when it is first read.
const std::vector<AlgorithmRow>& algorithm_table();
// nullptr when the kind has no algorithm of that name.
const AlgorithmRow* find_algorithm(CollectiveKind kind, const std::string& name);
// InputError naming the valid algorithms of the kind when it has none of that name.
const AlgorithmRow& algorithm(CollectiveKind kind, const std::string& name);
std::vector<std::string> algorithm_names(CollectiveKind kind);
const AlgorithmRow& default_algorithm(CollectiveKind kind);

// A name as a user writes it, resolved to its row once, where it is read: "auto", or a row of the kind
// (InputError naming the valid algorithms otherwise). The request carries the rows inward.
AlgorithmRef resolve_algorithm(CollectiveKind kind, const std::string& name);
std::vector<AlgorithmRef> resolve_algorithms(CollectiveKind kind, const std::vector<std::string>& names);

// Checks the algorithms against the kind and every group (InputError naming the problem and the valid
// choices), then builds the schedule of all groups at once.
Schedule build_schedule(const topo::Topology& topology, const CollectiveRequest& request);
void check_algorithms(const topo::Topology& topology, const CollectiveRequest& request);

// The closed form (sim/README.md, Closed forms) of the request's first group (one algorithm's, or a
// per-dimension composition of them) when every transfer is one hop over links of latency alpha and bandwidth
// B; time_s < 0 when there is none. The request's algorithms must have passed check_algorithms.
algorithms::ClosedForm closed_form(const topo::Topology& topology, const CollectiveRequest& request,
                                   double alpha, double bandwidth);

}  // namespace tpusim::sim
