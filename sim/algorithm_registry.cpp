#include "sim/algorithm_registry.hpp"

#include <fmt/format.h>

#include <cmath>

#include "sim/composition.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::sim {
namespace {

using algorithms::Line;

struct BuildInput {
  const topo::Topology& topology;
  const CollectiveRequest& request;
};

struct Entry {
  CollectiveKind kind;
  const char* name;
  const char* description;
  // The line algorithm when the name may be given per group dimension, else nullptr.
  const char* line_algorithm;
  // "" when the algorithm can run on this group, else why not.
  std::string (*fits)(const topo::Group&, const BuildInput&);
  // Builds one group's schedule when the algorithm is not a per-dimension composition.
  Schedule (*build)(const topo::Group&, const BuildInput&);
};

std::string fits_any(const topo::Group&, const BuildInput&) { return ""; }

std::string fits_two_dimensions(const topo::Group& group, const BuildInput&) {
  if (group.dims.size() == 2) return "";
  return fmt::format(
      "bucket2d needs a group with two dimensions, e.g. --group-axes core+x,y; this group has {}",
      group.dims.size());
}

std::string fits_divisible(const topo::Group& group, const BuildInput& input) {
  if (input.request.elements % group.size() == 0) return "";
  return fmt::format(
      "alltoall needs an element count divisible by the group size: {} elements over {} members",
      input.request.elements, group.size());
}

std::string fits_direct_alltoall(const topo::Group& group, const BuildInput& input) {
  const auto divisible = fits_divisible(group, input);
  if (!divisible.empty()) return divisible;
  if (group.size() <= 256) return "";
  return fmt::format(
      "direct alltoall starts p(p-1) flows at once and is limited to groups of at most 256 "
      "members (this group has {}); use pairwise",
      group.size());
}

Schedule build_line(const topo::Group& group, const BuildInput& input) {
  const auto& request = input.request;
  const auto* line = find_line_algorithm(request.algorithms.front());
  const ElementRange whole{0, request.elements};
  switch (request.kind) {
    case CollectiveKind::allreduce:
      return line->allreduce(group.ranks, whole);
    case CollectiveKind::reduce_scatter:
      return line->reduce_scatter_to(group.ranks, balanced_split(whole, group.size()));
    default:
      return line->allgather_from(group.ranks, balanced_split(whole, group.size()));
  }
}

Schedule build_bucket2d(const topo::Group& group, const BuildInput& input) {
  const auto* bidir = find_line_algorithm("bidir_ring");
  return compose_by_dimension(CollectiveKind::allreduce, group, {bidir, bidir}, input.request.elements);
}

Schedule build_pairwise(const topo::Group& group, const BuildInput& input) {
  return algorithms::pairwise_alltoall(group.ranks, input.request.elements);
}
Schedule build_direct_alltoall(const topo::Group& group, const BuildInput& input) {
  return algorithms::direct_alltoall(group.ranks, input.request.elements);
}
Schedule build_binomial(const topo::Group& group, const BuildInput& input) {
  return algorithms::binomial_broadcast(group.ranks, input.request.elements);
}

// Segments minimising (p - 2 + s) (alpha + S / (s B)) on the inter-chip link: s = sqrt((p - 2) S / (alpha
// B)).
Schedule build_pipeline(const topo::Group& group, const BuildInput& input) {
  const auto& link = input.topology.inter_chip();
  const double bytes = static_cast<double>(input.request.elements) * input.request.element_bytes;
  const double best = std::sqrt(std::max(0, group.size() - 2) * bytes /
                                std::max(link.latency_s() * link.bandwidth_Bps(), 1e-30));
  const auto segments = static_cast<std::uint64_t>(std::clamp(std::round(best), 1.0, 4096.0));
  return algorithms::pipeline_broadcast(group.ranks, input.request.elements, segments);
}

const std::vector<Entry>& table() {
  using K = CollectiveKind;
  static const std::vector<Entry> entries = {
      {K::allreduce, "ring", "unidirectional ring: reduce-scatter then allgather, 2(p-1) steps", "ring",
       fits_any, build_line},
      {K::allreduce, "bidir_ring", "bidirectional ring, half the data each way", "bidir_ring", fits_any,
       build_line},
      {K::allreduce, "bucket2d",
       "2D bucket: reduce-scatter along dimension 0, allreduce along dimension 1 on 1/k0 of the data, "
       "allgather "
       "back; bidirectional rings",
       nullptr, fits_two_dimensions, build_bucket2d},
      {K::allreduce, "halving_doubling",
       "Rabenseifner: recursive halving reduce-scatter, recursive doubling allgather; extra ranks folded",
       "halving_doubling", fits_any, build_line},
      {K::reduce_scatter, "ring", "unidirectional ring, p-1 steps", "ring", fits_any, build_line},
      {K::reduce_scatter, "bidir_ring", "bidirectional ring, half of every chunk each way", "bidir_ring",
       fits_any, build_line},
      {K::reduce_scatter, "halving_doubling",
       "recursive halving, partner j xor p/2, p/4, ..., 1: log2 p steps, each on half the data left; "
       "extra ranks folded",
       "halving_doubling", fits_any, build_line},
      {K::allgather, "ring", "unidirectional ring, p-1 steps", "ring", fits_any, build_line},
      {K::allgather, "bidir_ring", "bidirectional ring, half of every chunk each way", "bidir_ring", fits_any,
       build_line},
      {K::allgather, "halving_doubling",
       "recursive doubling, partner j xor 1, 2, ..., p/2: log2 p steps, the data held doubling each step; "
       "extra ranks folded",
       "halving_doubling", fits_any, build_line},
      {K::alltoall, "pairwise", "p-1 staged rounds, round s sends to the member s positions ahead", nullptr,
       fits_divisible, build_pairwise},
      {K::alltoall, "direct", "all p(p-1) flows at once (small groups only)", nullptr, fits_direct_alltoall,
       build_direct_alltoall},
      {K::broadcast, "binomial", "binomial tree from position 0, ceil(log2 p) rounds of the whole buffer",
       nullptr, fits_any, build_binomial},
      {K::broadcast, "pipeline", "chain 0 -> 1 -> ... -> p-1 with the buffer cut in segments", nullptr,
       fits_any, build_pipeline},
      {K::permute, "direct", "every (source, destination) pair at once", nullptr, fits_any, nullptr},
  };
  return entries;
}

const Entry& find(CollectiveKind kind, const std::string& name) {
  for (const auto& entry : table()) {
    if (entry.kind == kind && name == entry.name) return entry;
  }
  const auto names = algorithm_names(kind);
  throw InputError(fmt::format("unknown {} algorithm '{}'{}; valid {} algorithms are {}", to_string(kind),
                               name, did_you_mean(name, names), to_string(kind), join(names)));
}

std::vector<std::string> resolved_names(const CollectiveRequest& request) {
  if (request.algorithms.empty()) return {default_algorithm(request.kind)};
  return request.algorithms;
}

// The line algorithms for a per-dimension composition, checked against the group.
std::vector<const LineAlgorithm*> per_dimension(const CollectiveRequest& request,
                                                const std::vector<std::string>& names,
                                                const topo::Group& group) {
  std::vector<const LineAlgorithm*> lines;
  for (std::size_t d = 0; d < names.size(); ++d) {
    const Entry& entry = find(request.kind, names[d]);
    if (entry.line_algorithm == nullptr) {
      std::vector<std::string> valid;
      for (const auto& e : table()) {
        if (e.kind == request.kind && e.line_algorithm != nullptr) valid.push_back(e.name);
      }
      throw InputError(
          fmt::format("{} cannot run along one group dimension; per-dimension {} algorithms are {}", names[d],
                      to_string(request.kind), join(valid)));
    }
    const auto* line = find_line_algorithm(entry.line_algorithm);
    const bool last = d + 1 == names.size();
    // Only a composed allreduce lets the algorithm choose the assignment (reduce_scatter); reduce-scatter
    // and allgather requests give it (reduce_scatter_to, allgather_from), which works on any size.
    if (line->splits_only_powers_of_two && request.kind == CollectiveKind::allreduce && !last &&
        !algorithms::is_power_of_two(group.dims[d])) {
      throw InputError(
          fmt::format("{} along group dimension {} (size {}) needs a power-of-two size unless it is the "
                      "last dimension of an allreduce",
                      names[d], d, group.dims[d]));
    }
    lines.push_back(line);
  }
  return lines;
}

Schedule build_group(const topo::Group& group, const BuildInput& input, bool check_only) {
  const auto& request = input.request;
  const auto names = resolved_names(request);
  const int dims = static_cast<int>(group.dims.size());
  if (names.size() == 1) {
    const Entry& entry = find(request.kind, names.front());
    const auto problem = entry.fits(group, input);
    if (!problem.empty()) throw InputError(problem);
    if (check_only || entry.build == nullptr) return {};
    CollectiveRequest one = request;
    one.algorithms = names;
    return entry.build(group, BuildInput{input.topology, one});
  }
  if (request.kind != CollectiveKind::allreduce && request.kind != CollectiveKind::reduce_scatter &&
      request.kind != CollectiveKind::allgather) {
    throw InputError(fmt::format("{} takes one algorithm for the whole group, got {}",
                                 to_string(request.kind), names.size()));
  }
  if (static_cast<int>(names.size()) != dims) {
    throw InputError(
        fmt::format("a group with {} dimension{} takes one algorithm or one per dimension, got {} ({})", dims,
                    dims == 1 ? "" : "s", names.size(), join(names, ",")));
  }
  const auto lines = per_dimension(request, names, group);
  for (std::size_t d = 0; d < lines.size(); ++d) {
    if (request.kind != CollectiveKind::allreduce && lines[d]->reduce_scatter_to == nullptr) {
      throw InputError(fmt::format("{} cannot be composed per dimension for {}; use ring or bidir_ring",
                                   names[d], to_string(request.kind)));
    }
  }
  if (check_only) return {};
  return compose_by_dimension(request.kind, group, lines, request.elements);
}

}  // namespace

std::vector<AlgorithmInfo> algorithm_table() {
  std::vector<AlgorithmInfo> infos;
  for (const auto& e : table()) infos.push_back({e.kind, e.name, e.description, e.line_algorithm != nullptr});
  return infos;
}

std::vector<std::string> algorithm_names(CollectiveKind kind) {
  std::vector<std::string> names;
  for (const auto& e : table()) {
    if (e.kind == kind) names.push_back(e.name);
  }
  return names;
}

std::string default_algorithm(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::alltoall:
      return "pairwise";
    case CollectiveKind::broadcast:
      return "binomial";
    case CollectiveKind::permute:
      return "direct";
    default:
      return "bidir_ring";
  }
}

void check_algorithms(const topo::Topology& topology, const CollectiveRequest& request) {
  const BuildInput input{topology, request};
  if (request.kind == CollectiveKind::permute) {
    const auto names = resolved_names(request);
    if (names.size() != 1) throw InputError(fmt::format("permute takes one algorithm, got {}", names.size()));
    find(request.kind, names.front());
    return;
  }
  for (const auto& group : request.groups) build_group(group, input, true);
}

Schedule build_schedule(const topo::Topology& topology, const CollectiveRequest& request) {
  check_algorithms(topology, request);
  if (request.kind == CollectiveKind::permute)
    return algorithms::direct_permute(request.permutation, request.elements);
  const BuildInput input{topology, request};
  std::vector<Schedule> parts;
  for (const auto& group : request.groups) parts.push_back(build_group(group, input, false));
  return concurrently(std::move(parts));
}

}  // namespace tpusim::sim
