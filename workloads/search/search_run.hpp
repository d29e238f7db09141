#pragma once
// Runs a search (search_spec.hpp) over its space (search_space.hpp), evaluating candidates with a
// CandidateEvaluator:
//   exhaustive  every candidate in the space's order (the first max_candidates of them);
//   mcmc        a Metropolis chain over states as FlexFlow explores strategies (Jia et al., SysML 2019,
//               section 6): from the config's own mesh and layout when the space has them, else a random
//               state, each step proposes a state differing in one choice; a candidate that is faster is
//               taken, a slower one with probability exp(-beta * (t_new - t) / t); one that is illegal or
//               over the cap never is. A chain whose last 1000 proposals found nothing new restarts from a
//               random candidate not yet seen. Seeded: the same seed and limits give the same candidates,
//               unless the time limit cuts the chain short.
//   auto        exhaustive when the space has at most max_candidates candidates, else mcmc.
// It stops at max_candidates distinct candidates evaluated, at the time limit, or when none is left.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "workloads/search/candidate_evaluator.hpp"
#include "workloads/search/search_spec.hpp"

namespace tpusim::workloads {

// How much slower a candidate may be and still be taken by the chain: a candidate 10% slower than the
// current one is taken with probability exp(-1) = 0.37. A setting of the search, not of the model: it
// decides how far the chain wanders, not any simulated figure.
inline constexpr double kMcmcBeta = 10.0;

struct SearchOptions {
  bool share_collective_times = true;  // CandidateEvaluator's
  // Where collective times are kept between searches (collective_time_file.hpp); "" for nowhere. Only with
  // shared collective times.
  std::string collective_time_folder;
  // After each candidate evaluated: how many so far, of how many at most.
  std::function<void(const CandidateOutcome&, int done, int planned)> on_candidate;
};

struct SearchResult {
  std::uint64_t space_size = 0;
  SearchStrategy strategy = SearchStrategy::exhaustive;  // the one used (auto resolved)
  std::vector<CandidateOutcome> outcomes;                // distinct candidates, in evaluation order
  std::optional<CandidateOutcome> base;                  // the config's own mesh and layout, if it has one
  std::optional<std::size_t> best;                       // the fastest that fits (ties: less memory)
  std::vector<std::size_t> pareto;                       // fitting candidates no other beats in both time
                                                         // and memory, by memory per core
  std::string stopped_by;                                // "space", "max_candidates", "time_limit", "chain"
  std::uint64_t proposals = 0;                           // mcmc: states proposed
  int restarts = 0;                                      // mcmc: restarts from a random candidate
  std::uint64_t simulated_collectives = 0;               // distinct collectives simulated (one child each)
  int loaded_collective_times = 0;                       // read from the folder's file, from earlier searches
  std::string collective_time_file;                      // that file, "" without a folder
  std::string collective_time_problem;                   // why the file could not be written, if it could not
  double wall_s = 0;
};

SearchResult run_search(const SearchInput& input, const SearchOptions& options = {});

// Indices of the outcomes on the Pareto front of step time against memory per core (fitting ones only), by
// memory, and the fastest among them.
std::vector<std::size_t> pareto_front(const std::vector<CandidateOutcome>& outcomes);
std::optional<std::size_t> fastest(const std::vector<CandidateOutcome>& outcomes);

// Why a search that ran found no candidate under the cap, naming the cap, where it was set, and the least
// memory a candidate needs: the one line of its exit status 1.
std::string no_fit_message(const SearchInput& input, const SearchResult& result);

}  // namespace tpusim::workloads
