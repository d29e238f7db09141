#pragma once
// "auto" in place of an algorithm name: per request, so per message size, the algorithm of the registry
// that runs fastest on the simulator. Candidates are taken in the order of their alpha-beta critical paths,
// which no simulated time can beat, until the next one's critical path is no shorter than the best time
// found: the choice is the fastest candidate, without simulating those that cannot win. A candidate is
// simulated timing only (Simulator::probe) unless its critical path is its time: on the ideal network a
// schedule whose transfers never share a directed link at once takes exactly its alpha-beta time
// (bounds.hpp), so it needs no simulation. Ties go to the candidate listed first.
#include <optional>
#include <string>
#include <vector>

#include "sim/collective.hpp"
#include "sim/simulator.hpp"

namespace tpusim::sim {

// Whether any of the request's algorithms is auto.
bool asks_auto(const CollectiveRequest& request);

// The algorithm lists "auto" stands for on the request's groups: when every name is auto, every row of the
// kind over the whole group and, on groups of several dimensions, every per-dimension row along all of them;
// when auto is mixed with named dimensions, every per-dimension row in the auto places. Not yet checked
// against the groups.
std::vector<std::vector<AlgorithmRef>> auto_candidates(const CollectiveRequest& request);

struct Choice {
  std::size_t index = 0;  // into the candidates
  double time_s = 0;      // simulated, or the critical path where that is exact
  // The choice's simulation, timing only, when it was simulated (not timed by its critical path): what
  // running it alone gives, so a timing-only caller need not simulate it again.
  std::optional<CollectiveResult> result;
  std::size_t simulated = 0;  // candidates simulated
  std::size_t exact = 0;      // candidates timed by their contention-free alpha-beta critical path
  // The others could not win.
};

// The fastest of `candidates` (at least one; requests with named algorithms, groups of their own) on the
// simulator; candidates whose algorithms do not fit their groups are passed over. InputError naming the kind
// when none fits.
Choice fastest(Simulator& simulator, const std::vector<CollectiveRequest>& candidates);

// The request's "auto" names replaced by the fastest of auto_candidates on its groups, and that candidate's
// simulation when it had one.
struct AutoChoice {
  std::vector<AlgorithmRef> algorithms;
  std::optional<CollectiveResult> result;
};
AutoChoice fastest_algorithms(Simulator& simulator, const CollectiveRequest& request);

}  // namespace tpusim::sim
