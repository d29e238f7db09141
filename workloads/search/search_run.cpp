#include "workloads/search/search_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "topologies/support/check.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"
#include "workloads/search/collective_time_file.hpp"
#include "workloads/search/search_space.hpp"

namespace tpusim::workloads {
namespace {

bool faster(const CandidateOutcome& a, const CandidateOutcome& b) {
  if (a.step_time_s != b.step_time_s) return a.step_time_s < b.step_time_s;
  return a.memory_per_core_bytes < b.memory_per_core_bytes;
}

double cost(const CandidateOutcome& outcome) {
  return outcome.status == CandidateOutcome::Status::fits ? outcome.step_time_s
                                                          : std::numeric_limits<double>::infinity();
}

// Distinct candidates evaluated once each, with the limits.
class Evaluations {
 public:
  Evaluations(CandidateEvaluator& evaluator, const SearchSpec& spec, int planned,
              const SearchOptions& options, SearchResult& result)
      : evaluator_(evaluator),
        spec_(spec),
        planned_(planned),
        options_(options),
        result_(result),
        started_(std::chrono::steady_clock::now()) {}

  // Whether another candidate may be evaluated; sets stopped_by when not.
  bool may_continue(std::uint64_t space_size) {
    if (result_.outcomes.size() >= space_size) return stop("space");
    if (static_cast<int>(result_.outcomes.size()) >= spec_.max_candidates) return stop("max_candidates");
    // At least one candidate, however short the limit: a search always has something to report.
    if (spec_.time_limit_s > 0 && !result_.outcomes.empty() && elapsed_s() >= spec_.time_limit_s)
      return stop("time_limit");
    return true;
  }

  const CandidateOutcome& get(const Candidate& candidate) {
    const auto it = index_.find(candidate.key());
    if (it != index_.end()) return result_.outcomes[it->second];
    result_.outcomes.push_back(evaluator_.evaluate(candidate));
    index_.emplace(candidate.key(), result_.outcomes.size() - 1);
    if (options_.on_candidate) {
      options_.on_candidate(result_.outcomes.back(), static_cast<int>(result_.outcomes.size()), planned_);
    }
    return result_.outcomes.back();
  }
  bool known(const Candidate& candidate) const { return index_.count(candidate.key()) > 0; }

 private:
  bool stop(const char* why) {
    result_.stopped_by = why;
    return false;
  }
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }

  CandidateEvaluator& evaluator_;
  const SearchSpec& spec_;
  int planned_;
  const SearchOptions& options_;
  SearchResult& result_;
  std::chrono::steady_clock::time_point started_;
  std::map<std::string, std::size_t> index_;
};

void exhaustive(const SearchSpace& space, const SearchSpec& spec, Evaluations& evaluations) {
  for (const Candidate& candidate : space.enumerate(static_cast<std::uint64_t>(spec.max_candidates))) {
    if (!evaluations.may_continue(space.size())) return;
    evaluations.get(candidate);
  }
  evaluations.may_continue(space.size());  // records why it stopped
}

// Proposals in a row that find no candidate not seen before, after which the chain is taken to have explored
// what it can reach from where it is and restarts from a random candidate not seen yet.
constexpr std::uint64_t kStallProposals = 1000;
constexpr int kRestartDraws = 10000;

void mcmc(const SearchSpace& space, const SearchInput& input, Evaluations& evaluations,
          SearchResult& result) {
  std::mt19937_64 random(input.spec.seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const RunConfig& base = input.base;
  const TrainingChoice own_training{mtf::weight_sharding_modes().name_of(base.training.weight_sharding),
                                    base.model.pipeline.stages, base.model.pipeline.microbatches};
  const std::optional<SearchState> own = space.state_of(base.mesh.shape_text(), base.mesh.layout_text(),
                                                        base.mesh.mapping.to_string(), own_training);
  SearchState current = own ? *own : space.random_state(random);
  if (!evaluations.may_continue(space.size())) return;
  double current_cost = cost(evaluations.get(*space.candidate(current)));
  std::uint64_t since_new = 0;
  while (evaluations.may_continue(space.size())) {
    if (since_new >= kStallProposals) {
      int draws = 0;
      do {
        current = space.random_state(random);
      } while (evaluations.known(*space.candidate(current)) && ++draws < kRestartDraws);
      if (draws == kRestartDraws) {
        result.stopped_by = "chain";
        return;
      }
      ++result.restarts;
      current_cost = cost(evaluations.get(*space.candidate(current)));
      since_new = 0;
      continue;
    }
    ++result.proposals;
    const SearchState next = space.neighbour(current, random);
    const Candidate candidate = *space.candidate(next);
    since_new = evaluations.known(candidate) ? since_new + 1 : 0;
    const double next_cost = cost(evaluations.get(candidate));
    const bool take = next_cost <= current_cost || std::isinf(current_cost) ||
                      (std::isfinite(next_cost) &&
                       uniform(random) < std::exp(-kMcmcBeta * (next_cost - current_cost) / current_cost));
    if (take) {
      current = next;
      current_cost = next_cost;
    }
  }
}

// A search whose every candidate is illegal was given a space that cannot work: bad input, said at the key
// that made it so. Candidates that all run but are over the cap are a result (exit 1, no_fit_message).
void check_some_candidate_runs(const SearchInput& input, const SearchResult& result) {
  const auto& outcomes = result.outcomes;
  if (outcomes.empty()) return;
  const auto legal = std::find_if(outcomes.begin(), outcomes.end(), [](const auto& o) { return o.legal(); });
  if (legal == outcomes.end()) {
    // Microbatch counts the batch cannot take are the searched key's, not the layout's, to blame.
    const bool microbatches = outcomes.front().problem.rfind("training.microbatches:", 0) == 0 &&
                              input.spec.locations.count("microbatches") > 0;
    const std::string key = microbatches                        ? "microbatches"
                            : !input.spec.pinned_layout.empty() ? "pin_layout"
                                                                : "layout_dims";
    throw InputError(fmt::format("{}: none of the {} candidates evaluated can be laid out; the first: {}: {}",
                                 input.spec.where(key), outcomes.size(), outcomes.front().candidate.layout,
                                 outcomes.front().problem));
  }
}

}  // namespace

std::string no_fit_message(const SearchInput& input, const SearchResult& result) {
  const auto& outcomes = result.outcomes;
  const auto least = std::min_element(outcomes.begin(), outcomes.end(), [](const auto& a, const auto& b) {
    return a.legal() && (!b.legal() || a.memory_per_core_bytes < b.memory_per_core_bytes);
  });
  std::string message = fmt::format(
      "no candidate of {} fits: {} per core{} ({}) is below the memory of every candidate evaluated",
      input.base.name, format_bytes(double(input.spec.memory_cap_bytes)),
      input.spec.locations.count("memory_cap") ? "" : ", the device's HBM,", input.spec.where("memory_cap"));
  if (least != outcomes.end() && least->legal()) {
    const std::string training = least->candidate.training_text();
    message += fmt::format("; the least, {} with layout {}{}, needs {}", least->candidate.mesh_shape,
                           least->candidate.layout, training.empty() ? "" : " and " + training,
                           format_bytes(double(least->memory_per_core_bytes)));
  }
  return message;
}

std::optional<std::size_t> fastest(const std::vector<CandidateOutcome>& outcomes) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].status != CandidateOutcome::Status::fits) continue;
    if (!best || faster(outcomes[i], outcomes[*best])) best = i;
  }
  return best;
}

std::vector<std::size_t> pareto_front(const std::vector<CandidateOutcome>& outcomes) {
  std::vector<std::size_t> fitting;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].status == CandidateOutcome::Status::fits) fitting.push_back(i);
  }
  std::stable_sort(fitting.begin(), fitting.end(), [&](std::size_t a, std::size_t b) {
    const auto &x = outcomes[a], &y = outcomes[b];
    if (x.memory_per_core_bytes != y.memory_per_core_bytes)
      return x.memory_per_core_bytes < y.memory_per_core_bytes;
    return x.step_time_s < y.step_time_s;
  });
  std::vector<std::size_t> front;
  for (const std::size_t i : fitting) {
    if (front.empty() || outcomes[i].step_time_s < outcomes[front.back()].step_time_s) front.push_back(i);
  }
  return front;
}

SearchResult run_search(const SearchInput& input, const SearchOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  if (input.base.hardware.overlap == mtf::OverlapPolicy::concurrent) {
    throw InputError(
        fmt::format("{}: search times each collective alone from one cache, which the concurrent "
                    "policy's shared clock cannot use; use dependencies or none",
                    input.base.where("hardware.overlap")));
  }
  SearchResult result;
  const SearchSpace space(input.base, input.spec);
  result.space_size = space.size();
  if (space.size() == 0) {
    const std::string key = !input.spec.mesh_shapes.empty()     ? "mesh_shapes"
                            : !input.spec.pinned_layout.empty() ? "pin_layout"
                                                                : "mesh_dims";
    throw InputError(
        fmt::format("{}: the search space has no candidate: no mesh of 1 to {} axes over {} cores "
                    "with a layout of {} meets it",
                    input.spec.where(key), input.spec.mesh_dims, input.base.hardware.topology.num_cores(),
                    join(space.layout_dims(), ", ")));
  }
  result.strategy = input.spec.strategy;
  if (result.strategy == SearchStrategy::automatic) {
    result.strategy = space.size() <= static_cast<std::uint64_t>(input.spec.max_candidates)
                          ? SearchStrategy::exhaustive
                          : SearchStrategy::mcmc;
  }
  CandidateEvaluator evaluator(input.base, input.base_yaml, input.spec.memory_cap_bytes,
                               options.share_collective_times);
  if (options.share_collective_times && !options.collective_time_folder.empty()) {
    result.collective_time_file = collective_time_file(options.collective_time_folder, evaluator.simulator());
    result.loaded_collective_times =
        load_collective_times(result.collective_time_file, evaluator.simulator());
  }
  if (input.has_own_mesh) result.base = evaluator.evaluate_base();
  const int planned = static_cast<int>(std::min<std::uint64_t>(space.size(), input.spec.max_candidates));
  Evaluations evaluations(evaluator, input.spec, planned, options, result);
  if (result.strategy == SearchStrategy::exhaustive) {
    exhaustive(space, input.spec, evaluations);
  } else {
    mcmc(space, input, evaluations, result);
  }
  check_some_candidate_runs(input, result);
  result.best = fastest(result.outcomes);
  result.pareto = pareto_front(result.outcomes);
  result.simulated_collectives = evaluator.simulated_collectives();
  if (!result.collective_time_file.empty() && result.simulated_collectives > 0) {
    // Keeping them only saves the next search time: a folder that cannot take them is said, not fatal.
    try {
      save_collective_times(result.collective_time_file, evaluator.simulator());
    } catch (const EnvironmentError& error) {
      result.collective_time_problem = error.what();
    } catch (const InputError& error) {  // --cache-dir under a file: the search is done all the same
      result.collective_time_problem = error.what();
    }
  }
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace tpusim::workloads
