#include "sim/algorithm_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/composition.hpp"
#include "sim/routes.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/name_table.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::sim {

// The rows as written (algorithm_table.cpp), before the checks below.
std::vector<AlgorithmRow> algorithm_rows();

namespace {

using algorithms::AlgorithmInput;

constexpr CollectiveKind kKinds[] = {CollectiveKind::allreduce, CollectiveKind::reduce_scatter,
                                     CollectiveKind::allgather, CollectiveKind::alltoall,
                                     CollectiveKind::broadcast, CollectiveKind::permute};

bool composable(CollectiveKind kind) {
  return kind == CollectiveKind::allreduce || kind == CollectiveKind::reduce_scatter ||
         kind == CollectiveKind::allgather;
}

// A bug in a row is caught the first time anything reads the table, not when a user names the algorithm.
std::vector<AlgorithmRow> checked(std::vector<AlgorithmRow> rows) {
  for (const CollectiveKind kind : kKinds) {
    int defaults = 0;
    for (const auto& row : rows) defaults += row.kind == kind && row.is_default;
    TPUSIM_CHECK(defaults == 1);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    for (std::size_t j = 0; j < i; ++j)
      TPUSIM_CHECK(rows[j].kind != row.kind || std::string(rows[j].name) != row.name);
    const bool per_dimension = row.shape == GroupShape::per_dimension;
    TPUSIM_CHECK(per_dimension == (row.line != nullptr));
    TPUSIM_CHECK(per_dimension == (row.build == nullptr));
    TPUSIM_CHECK(!per_dimension || composable(row.kind));
    TPUSIM_CHECK(row.shape != GroupShape::two_dimensional || row.kind != CollectiveKind::permute);
  }
  return rows;
}

// The rows the request runs: its own, or the kind's default. Auto must have been chosen before (the caller's
// algorithm_choice.hpp), and every row must be of the request's kind.
std::vector<const AlgorithmRow*> resolved_rows(const CollectiveRequest& request) {
  if (request.algorithms.empty()) return {&default_algorithm(request.kind)};
  std::vector<const AlgorithmRow*> rows;
  for (const AlgorithmRef& algorithm : request.algorithms) {
    if (algorithm.is_auto()) {
      throw InputError(fmt::format("{}: auto is chosen before a collective runs (sim/algorithm_choice.hpp)",
                                   to_string(request.kind)));
    }
    TPUSIM_CHECK(algorithm.row().kind == request.kind);
    rows.push_back(&algorithm.row());
  }
  return rows;
}

// "" when the row can run on the whole group by itself, else why not.
std::string misfit(const AlgorithmRow& row, const topo::Group& group, const AlgorithmInput& input) {
  if (row.needs_multislice && !input.topology.multislice())
    return fmt::format("{} needs a multislice pod (topology multislice:...)", row.name);
  if (row.shape == GroupShape::two_dimensional && group.dims.size() != 2) {
    return fmt::format("{} needs a group with two dimensions, e.g. --group-axes core+x,y; this group has {}",
                       row.name, group.dims.size());
  }
  return row.fits == nullptr ? "" : row.fits(group, input);
}

// The line operations for a per-dimension composition, checked against the group.
std::vector<const algorithms::LineOperations*> per_dimension(const CollectiveRequest& request,
                                                             const std::vector<const AlgorithmRow*>& rows,
                                                             const topo::Group& group) {
  std::vector<const algorithms::LineOperations*> lines;
  for (std::size_t d = 0; d < rows.size(); ++d) {
    const AlgorithmRow& row = *rows[d];
    if (row.line == nullptr) {
      std::vector<std::string> valid;
      for (const auto& r : algorithm_table()) {
        if (r.kind == request.kind && r.line != nullptr) valid.push_back(r.name);
      }
      throw InputError(
          fmt::format("{} cannot run along one group dimension; per-dimension {} algorithms are {}", row.name,
                      to_string(request.kind), join(valid)));
    }
    const bool last = d + 1 == rows.size();
    // Only a composed allreduce lets the algorithm choose the assignment (reduce_scatter); reduce-scatter
    // and allgather requests give it (reduce_scatter_to, allgather_from), which works on any size.
    if (row.line->splits_only_powers_of_two && request.kind == CollectiveKind::allreduce && !last &&
        !algorithms::is_power_of_two(group.dims[d])) {
      throw InputError(
          fmt::format("{} along group dimension {} (size {}) needs a power-of-two size unless it is the "
                      "last dimension of an allreduce",
                      row.name, d, group.dims[d]));
    }
    lines.push_back(row.line);
  }
  return lines;
}

// One algorithm over the whole group, flattened in group order, by its line operations.
Schedule build_on_line(const algorithms::LineOperations& line, CollectiveKind kind, const topo::Group& group,
                       std::uint64_t elements) {
  const ElementRange whole{0, elements};
  switch (kind) {
    case CollectiveKind::allreduce:
      return line.allreduce(group.ranks, whole);
    case CollectiveKind::reduce_scatter:
      return line.reduce_scatter_to(group.ranks, balanced_split(whole, group.size()));
    default:
      return line.allgather_from(group.ranks, balanced_split(whole, group.size()));
  }
}

// Checks the names against one group and, unless check_only, builds its schedule.
Schedule build_group(const topo::Group& group, const AlgorithmInput& input, bool check_only) {
  const auto& request = input.request;
  const auto rows = resolved_rows(request);
  const int dims = static_cast<int>(group.dims.size());
  if (rows.size() == 1) {
    const AlgorithmRow& row = *rows.front();
    const auto problem = misfit(row, group, input);
    if (!problem.empty()) throw InputError(problem);
    if (check_only) return {};
    if (row.line != nullptr) return build_on_line(*row.line, request.kind, group, request.elements);
    return row.build(group, input);
  }
  if (!composable(request.kind)) {
    throw InputError(fmt::format("{} takes one algorithm for the whole group, got {}",
                                 to_string(request.kind), rows.size()));
  }
  if (static_cast<int>(rows.size()) != dims) {
    throw InputError(
        fmt::format("a group with {} dimension{} takes one algorithm or one per dimension, got {} ({})", dims,
                    dims == 1 ? "" : "s", rows.size(), algorithm_list(request.algorithms)));
  }
  const auto lines = per_dimension(request, rows, group);
  if (check_only) return {};
  return compose_by_dimension(request.kind, group, lines, request.elements);
}

// Rings and chains run over neighbour links: on a pod with links down, a transfer whose healthy route crosses
// one makes them impossible there (the faulty pod would silently turn their one-hop steps into detours).
void check_neighbour_links(const topo::Topology& topology, const CollectiveRequest& request) {
  const auto& faults = topology.faults();
  if (!faults.any_down() || request.kind == CollectiveKind::permute) return;
  std::string needing;
  for (const AlgorithmRow* row : resolved_rows(request)) {
    if (row->needs_neighbour_links && needing.empty()) needing = row->name;
  }
  if (needing.empty()) return;
  const topo::Topology healthy = topology.with_faults("");
  const AlgorithmInput input{topology, request};
  std::set<std::pair<int, int>> chip_pairs;  // checked already
  std::vector<Transfer> round, previous;
  for (const auto& group : request.groups) {
    const Schedule schedule = build_group(group, input, false);
    previous.clear();
    for (std::size_t k = 0; k < schedule.round_count(); ++k) {
      // A round that repeats the one before sends between the same ranks: known without building it, which
      // saves generating a long ring's thousands of rounds only to check them before the simulation does.
      if (k > 0 && schedule.repeats_previous(k)) continue;
      round.clear();
      schedule.append_round(k, round);
      if (same_pattern(round, previous)) continue;
      for (const auto& t : round) {
        const int from = topo::chip_of(topology, t.src), to = topo::chip_of(topology, t.dst);
        if (from == to || !chip_pairs.insert({from, to}).second) continue;
        for (const int link : route_between(healthy, t.src, t.dst).links) {
          if (!faults.is_down(link / 2)) continue;
          throw InputError(fmt::format(
              "{} runs over neighbour links, and its transfer from rank {} to rank {} would cross link {}, "
              "which is down; on this pod use an algorithm that routes around it, such as halving_doubling",
              needing, t.src, t.dst, topo::link_name(topology, link / 2)));
        }
      }
      previous.swap(round);
    }
  }
}

}  // namespace

const char* to_string(GroupShape shape) {
  switch (shape) {
    case GroupShape::any:
      return "any";
    case GroupShape::two_dimensional:
      return "two-dimensional";
    case GroupShape::per_dimension:
      return "per-dimension";
    case GroupShape::per_axis:
      return "one dimension per axis";
  }
  return "?";
}

const std::vector<AlgorithmRow>& algorithm_table() {
  static const std::vector<AlgorithmRow> rows = checked(algorithm_rows());
  return rows;
}

const AlgorithmRow* find_algorithm(CollectiveKind kind, const std::string& name) {
  for (const auto& row : algorithm_table()) {
    if (row.kind == kind && name == row.name) return &row;
  }
  return nullptr;
}

const AlgorithmRow& algorithm(CollectiveKind kind, const std::string& name) {
  if (const AlgorithmRow* row = find_algorithm(kind, name)) return *row;
  throw InputError(
      unknown_name_message(fmt::format("{} algorithm", to_string(kind)), name, algorithm_names(kind)));
}

std::vector<std::string> algorithm_names(CollectiveKind kind) {
  std::vector<std::string> names;
  for (const auto& row : algorithm_table()) {
    if (row.kind == kind) names.push_back(row.name);
  }
  return names;
}

const AlgorithmRow& default_algorithm(CollectiveKind kind) {
  for (const auto& row : algorithm_table()) {
    if (row.kind == kind && row.is_default) return row;
  }
  TPUSIM_CHECK(false);  // checked(): every kind has one
  return algorithm_table().front();
}

AlgorithmRef resolve_algorithm(CollectiveKind kind, const std::string& name) {
  if (name == kAutoAlgorithm) return AlgorithmRef::automatic();
  return AlgorithmRef(algorithm(kind, name));
}

std::vector<AlgorithmRef> resolve_algorithms(CollectiveKind kind, const std::vector<std::string>& names) {
  std::vector<AlgorithmRef> algorithms;
  for (const auto& name : names) algorithms.push_back(resolve_algorithm(kind, name));
  return algorithms;
}

void check_algorithms(const topo::Topology& topology, const CollectiveRequest& request) {
  const AlgorithmInput input{topology, request};
  // A permute is one schedule of its pairs, not one per group.
  if (request.kind == CollectiveKind::permute) {
    const auto rows = resolved_rows(request);
    if (rows.size() != 1) throw InputError(fmt::format("permute takes one algorithm, got {}", rows.size()));
    return;
  }
  for (const auto& group : request.groups) build_group(group, input, true);
  check_neighbour_links(topology, request);
}

Schedule build_schedule(const topo::Topology& topology, const CollectiveRequest& request) {
  check_algorithms(topology, request);
  const AlgorithmInput input{topology, request};
  if (request.kind == CollectiveKind::permute)
    return resolved_rows(request).front()->build(topo::Group{}, input);
  std::vector<Schedule> parts;
  for (const auto& group : request.groups) parts.push_back(build_group(group, input, false));
  return concurrently(std::move(parts));
}

algorithms::ClosedForm closed_form(const topo::Topology& topology, const CollectiveRequest& request,
                                   double alpha, double bandwidth) {
  const double s = static_cast<double>(request.elements) * request.element_bytes;
  const auto rows = resolved_rows(request);
  // Permute pairs need not form groups (build_request adds them, hand-made requests may not).
  if (request.kind == CollectiveKind::permute) {
    const auto& row = *rows.front();
    if (row.closed_form == nullptr) return {};
    return row.closed_form({request.kind, {}, s, alpha, bandwidth});
  }
  // The formulas take a ring's neighbours one hop apart; round a twisted wraparound they are not.
  if (request.groups.empty() || topology.twisted()) return {};
  const auto& group = request.groups.front();
  algorithms::ClosedFormInput input{request.kind, group.dims, s,
                                    alpha,        bandwidth,  topo::first_dimension_on_chip(topology, group)};
  if (topology.multislice()) {
    std::vector<int> slices;
    for (const topo::Rank rank : group.ranks)
      slices.push_back(topology.slice_of_chip(rank / topology.cores_per_chip()));
    std::sort(slices.begin(), slices.end());
    input.slices = static_cast<int>(std::unique(slices.begin(), slices.end()) - slices.begin());
    input.dcn_alpha = topology.dcn().latency_s();
    input.dcn_bandwidth = topology.dcn().bandwidth_Bps();
  }
  if (rows.size() == 1) {
    const auto& row = *rows.front();
    if (row.closed_form == nullptr) return {};
    // A group across slices has DCN transfers, which only closed forms that model the DCN count.
    if (input.slices > 1 && row.closed_form != algorithms::hierarchical_closed_form) return {};
    return row.closed_form(input);
  }
  if (input.slices > 1) return {};
  std::vector<algorithms::ClosedFormFunction> per_dimension;
  for (const AlgorithmRow* row : rows) per_dimension.push_back(row->closed_form);
  return composed_closed_form(input, per_dimension);
}

}  // namespace tpusim::sim
