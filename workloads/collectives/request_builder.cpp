#include "workloads/collectives/request_builder.hpp"

#include <fmt/format.h>

#include "sim/algorithm_choice.hpp"
#include "sim/algorithm_registry.hpp"
#include "sim/request_check.hpp"
#include "topologies/group.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"
#include "workloads/config/config_schema.hpp"

namespace tpusim::workloads {

using sim::CollectiveKind;
namespace {

std::vector<std::string> split_names(const std::string& text) {
  const auto names = split(text, ',');
  for (const auto& name : names) {
    if (name.empty()) throw InputError(fmt::format("algorithm list '{}' has an empty name", text));
  }
  return names;
}

}  // namespace

namespace {

// The request as named; with "auto", the candidates it stands for on these groups.
BuiltRequest build_named(const topo::Topology& topology, const CollectiveSpec& spec) {
  BuiltRequest built;
  auto& request = built.request;
  request.kind = sim::parse_collective_kind(spec.op);
  request.op = sim::reduce_ops().parse(spec.reduce);
  const std::vector<std::string> names =
      spec.algorithms.empty() ? std::vector<std::string>{sim::default_algorithm(request.kind).name}
                              : split_names(spec.algorithms);
  request.elements = parse_collective_bytes(spec.bytes) / 4;
  request.element_bytes = 4;
  // An unknown name is reported after the group axes.
  const auto* row = names.size() == 1 ? sim::find_algorithm(request.kind, names.front()) : nullptr;
  const bool two_dimensional = row != nullptr && row->shape == sim::GroupShape::two_dimensional;
  if (!spec.group_axes.empty()) {
    built.group_axes = spec.group_axes;
  } else if (row != nullptr && row->shape == sim::GroupShape::per_axis) {
    built.group_axes = topo::per_axis_group_axes(topology);
  } else {
    built.group_axes = topo::default_group_axes(topology, two_dimensional ? 2 : names.size());
  }
  const auto axes = topo::parse_group_axes(topology, built.group_axes);
  built.group_axes = topo::describe_group_axes(topology, axes);
  request.groups = topo::groups_along(topology, axes);
  if (request.kind == CollectiveKind::permute) {
    for (const auto& group : request.groups) {
      for (int i = 0; i < group.size(); ++i) {
        request.permutation.emplace_back(group.ranks[i], group.ranks[(i + 1) % group.size()]);
      }
    }
  }
  request.algorithms = sim::resolve_algorithms(request.kind, names);
  request.label = fmt::format("{}/{}", spec.op, join(names, ","));
  if (!sim::asks_auto(request)) {
    sim::validate_request(topology, request);
    return built;
  }
  // The lists auto stands for on these groups, those that fit kept; resolve_auto picks one by simulation.
  std::vector<BuiltRequest> candidates;
  for (auto& algorithms : sim::auto_candidates(request)) {
    BuiltRequest candidate = built;
    candidate.request.label = fmt::format("{}/{}", spec.op, sim::algorithm_list(algorithms));
    candidate.request.algorithms = std::move(algorithms);
    candidate.chosen_by_auto = true;
    try {
      sim::validate_request(topology, candidate.request);
    } catch (const InputError&) {
      continue;
    }
    candidates.push_back(std::move(candidate));
  }
  built.auto_candidates = std::move(candidates);
  if (built.auto_candidates.empty()) {
    throw InputError(
        fmt::format("auto: no {} algorithm fits the groups along {}", spec.op, built.group_axes));
  }
  return built;
}

}  // namespace

std::string default_collective_topology() {
  const ConfigKey* key = find_config_key("hardware.topology");
  TPUSIM_CHECK(key != nullptr && key->absent == ConfigKey::Absent::default_value);
  return key->default_value;
}

std::string default_collective_network() { return sim::network_models().name_of(sim::SimOptions{}.network); }

std::vector<std::string> BuiltRequest::algorithm_names() const {
  std::vector<std::string> names;
  for (const auto& algorithm : request.algorithms) names.push_back(algorithm.name());
  return names;
}

std::uint64_t parse_collective_bytes(const std::string& text) {
  const std::uint64_t bytes = parse_bytes(text);
  if (bytes == 0)
    throw InputError(fmt::format("size '{}' is zero; a collective needs at least one 4-byte element", text));
  if (bytes % 4 != 0) {
    throw InputError(
        fmt::format("size '{}' is {} bytes, not a whole number of 4-byte fp32 elements", text, bytes));
  }
  if (bytes > kMaxCollectiveBytes) {
    throw InputError(fmt::format("size '{}' is more than 1 PiB per member, more than any pod holds", text));
  }
  return bytes;
}

BuiltRequest build_request(const topo::Topology& topology, const CollectiveSpec& spec) {
  if (spec.algorithms != sim::kAutoAlgorithm || !spec.group_axes.empty()) return build_named(topology, spec);
  // "auto" with no group axes: every algorithm on the group axes it gets by default.
  std::vector<BuiltRequest> candidates;
  for (const auto& name : sim::algorithm_names(sim::parse_collective_kind(spec.op))) {
    CollectiveSpec named = spec;
    named.algorithms = name;
    try {
      candidates.push_back(build_named(topology, named));
    } catch (const InputError&) {
      continue;  // does not fit this pod (a two-dimensional algorithm on a ring, say)
    }
    candidates.back().chosen_by_auto = true;
  }
  if (candidates.empty()) return build_named(topology, spec);  // the error of auto over the default axes
  BuiltRequest all = candidates.front();
  all.request.algorithms = {sim::AlgorithmRef::automatic()};
  all.group_axes = "default";
  all.auto_candidates = std::move(candidates);
  return all;
}

BuiltRequest resolve_auto(sim::Simulator& simulator, BuiltRequest built) {
  if (built.auto_candidates.empty()) return built;
  std::vector<sim::CollectiveRequest> requests;
  for (const auto& candidate : built.auto_candidates) requests.push_back(candidate.request);
  return built.auto_candidates[sim::fastest(simulator, requests).index];
}

}  // namespace tpusim::workloads
