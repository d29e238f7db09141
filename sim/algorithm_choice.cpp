#include "sim/algorithm_choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/algorithm_registry.hpp"
#include "sim/bounds.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::sim {

bool asks_auto(const CollectiveRequest& request) {
  return std::any_of(request.algorithms.begin(), request.algorithms.end(),
                     [](const AlgorithmRef& algorithm) { return algorithm.is_auto(); });
}

std::vector<std::vector<AlgorithmRef>> auto_candidates(const CollectiveRequest& request) {
  const auto& asked = request.algorithms;
  const bool all_auto = std::all_of(asked.begin(), asked.end(),
                                    [](const AlgorithmRef& algorithm) { return algorithm.is_auto(); });
  const std::size_t dims = request.groups.empty() ? 1 : request.groups.front().dims.size();
  // Per-dimension compositions: along every dimension when all is auto, in the auto places otherwise.
  const bool compose = dims >= 2 && (asked.size() == dims || (all_auto && asked.size() == 1));
  std::vector<std::vector<AlgorithmRef>> out;
  for (const auto& row : algorithm_table()) {
    if (row.kind != request.kind || !row.auto_may_choose()) continue;
    if (all_auto) out.push_back({AlgorithmRef(row)});
    if (row.line == nullptr || !compose) continue;
    std::vector<AlgorithmRef> composed(dims, AlgorithmRef(row));
    for (std::size_t d = 0; d < dims && asked.size() == dims; ++d) {
      if (!asked[d].is_auto()) composed[d] = asked[d];
    }
    out.push_back(std::move(composed));
  }
  return out;
}

Choice fastest(Simulator& simulator, const std::vector<CollectiveRequest>& candidates) {
  TPUSIM_CHECK(!candidates.empty());
  const auto& topology = simulator.topology();
  // Fewest rounds first: a latency-bound candidate timed early lets the walks of long schedules stop as soon
  // as their critical path passes it (the order changes nothing but the work: every candidate that could win
  // is still timed).
  std::vector<std::pair<std::size_t, std::size_t>> by_rounds;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    try {
      check_algorithms(topology, candidates[i]);
    } catch (const InputError&) {
      continue;
    }
    by_rounds.emplace_back(build_schedule(topology, candidates[i]).round_count(), i);
  }
  if (by_rounds.empty()) {
    throw InputError(
        fmt::format("auto: no {} algorithm fits these groups", to_string(candidates.front().kind)));
  }
  std::stable_sort(by_rounds.begin(), by_rounds.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Choice best;
  const auto found = [&] { return best.simulated + best.exact > 0; };
  const auto consider = [&](std::size_t i, double time_s, std::optional<CollectiveResult> result) {
    if (!found() || time_s < best.time_s || (time_s == best.time_s && i < best.index)) {
      best.index = i;
      best.time_s = time_s;
      best.result = std::move(result);
    }
  };
  const auto simulate = [&](std::size_t i) {
    CollectiveResult result = simulator.probe(candidates[i]);
    consider(i, result.time_s, result);
    ++best.simulated;
  };
  const bool ideal = simulator.network() == NetworkModel::ideal;
  std::vector<std::pair<double, std::size_t>> to_simulate;  // critical path, candidate
  const auto by_critical_path = [](const auto& a, const auto& b) { return a.first < b.first; };
  // A long schedule's walk stops early only against a time found; before walking one, the most promising
  // candidate that needs a simulation is simulated (short schedules are walked first, so a candidate that
  // loses to a long one's exact time is not simulated for nothing).
  const std::size_t participants =
      candidates.front().groups.empty() ? 1 : candidates.front().groups.front().ranks.size();
  const std::size_t long_schedule =
      4 * static_cast<std::size_t>(std::ceil(std::log2(std::max<std::size_t>(participants, 2))));
  const auto simulate_most_promising = [&] {
    const auto it = std::min_element(to_simulate.begin(), to_simulate.end(), by_critical_path);
    const std::size_t i = it->second;
    to_simulate.erase(it);
    simulate(i);
  };
  for (const auto& [rounds, i] : by_rounds) {
    if (!found() && !to_simulate.empty() && rounds > long_schedule) simulate_most_promising();
    const auto prediction = predict_alpha_beta(
        topology, candidates[i], true, found() ? best.time_s : std::numeric_limits<double>::infinity());
    if (prediction.gave_up) continue;  // its critical path alone is longer than a time found
    if (ideal && prediction.contention_checked && prediction.contention_free) {
      consider(i, prediction.time_s, std::nullopt);
      ++best.exact;
    } else {
      to_simulate.emplace_back(prediction.time_s, i);
    }
  }
  std::stable_sort(to_simulate.begin(), to_simulate.end(), by_critical_path);
  for (const auto& [critical_path_s, i] : to_simulate) {
    if (found() && critical_path_s >= best.time_s) break;
    simulate(i);
  }
  return best;
}

AutoChoice fastest_algorithms(Simulator& simulator, const CollectiveRequest& request) {
  std::vector<CollectiveRequest> candidates;
  for (auto& algorithms : auto_candidates(request)) {
    candidates.push_back(request);
    candidates.back().algorithms = std::move(algorithms);
    candidates.back().data = nullptr;
  }
  // None when auto is mixed with names but the group has another number of dimensions.
  if (candidates.empty()) {
    throw InputError(fmt::format("auto: no {} algorithm fits these groups", to_string(request.kind)));
  }
  Choice choice = fastest(simulator, candidates);
  return {candidates[choice.index].algorithms, std::move(choice.result)};
}

}  // namespace tpusim::sim
