#include "sim/request_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

#include "sim/algorithm_registry.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::sim {
namespace {

void check_rank(const topo::Topology& topology, topo::Rank rank, const char* what) {
  if (rank < 0 || rank >= topology.num_cores()) {
    throw InputError(fmt::format("{} names core {} but topology '{}' has cores 0..{}", what, rank,
                                 topology.name(), topology.num_cores() - 1));
  }
}

void check_permutation(const topo::Topology& topology, const CollectiveRequest& request) {
  if (request.permutation.empty()) throw InputError("permute needs at least one (source, destination) pair");
  std::set<topo::Rank> sources, destinations, members;
  for (const auto& group : request.groups) members.insert(group.ranks.begin(), group.ranks.end());
  for (const auto& [src, dst] : request.permutation) {
    check_rank(topology, src, "permutation");
    check_rank(topology, dst, "permutation");
    if (!sources.insert(src).second)
      throw InputError(fmt::format("permutation sends from core {} twice", src));
    if (!destinations.insert(dst).second)
      throw InputError(fmt::format("permutation sends to core {} twice", dst));
    for (const topo::Rank rank : {src, dst}) {
      if (!members.empty() && members.count(rank) == 0) {
        throw InputError(fmt::format("permutation pair ({}, {}): core {} is in no group", src, dst, rank));
      }
    }
  }
}

std::set<topo::Rank> data_ranks(const CollectiveRequest& request) {
  std::set<topo::Rank> ranks;
  for (const auto& group : request.groups) ranks.insert(group.ranks.begin(), group.ranks.end());
  for (const auto& [src, dst] : request.permutation) ranks.insert({src, dst});
  return ranks;
}

}  // namespace

void validate_request(const topo::Topology& topology, const CollectiveRequest& request) {
  if (request.element_bytes < 1) throw InputError("element size must be at least 1 byte");
  if (request.elements > std::numeric_limits<std::uint64_t>::max() / request.element_bytes) {
    throw InputError(fmt::format("{} elements of {} bytes do not fit in 64 bits of bytes per member",
                                 request.elements, request.element_bytes));
  }
  if (request.kind != CollectiveKind::permute && request.groups.empty()) {
    throw InputError(fmt::format("{} needs at least one group of cores", to_string(request.kind)));
  }
  std::set<topo::Rank> seen;
  for (const auto& group : request.groups) {
    topo::validate_group(topology, group);
    for (const topo::Rank rank : group.ranks) {
      if (!seen.insert(rank).second)
        throw InputError(fmt::format("core {} is in two groups; groups must be disjoint", rank));
    }
  }
  if (request.kind == CollectiveKind::permute) check_permutation(topology, request);
  if (request.data != nullptr) {
    for (const topo::Rank rank : data_ranks(request)) {
      const auto found = request.data->find(rank);
      if (found == request.data->end()) throw InputError(fmt::format("data: no buffer for core {}", rank));
      if (found->second.size() != request.elements) {
        throw InputError(fmt::format("data: core {} has {} elements, the request says {}", rank,
                                     found->second.size(), request.elements));
      }
    }
  }
  check_algorithms(topology, request);
}

std::vector<topo::Rank> participants(const CollectiveRequest& request) {
  std::set<topo::Rank> ranks;
  if (request.kind == CollectiveKind::permute) {
    for (const auto& [src, dst] : request.permutation) {
      if (src != dst) ranks.insert({src, dst});
    }
  } else {
    for (const auto& group : request.groups) {
      if (group.size() > 1) ranks.insert(group.ranks.begin(), group.ranks.end());
    }
  }
  return {ranks.begin(), ranks.end()};
}

double busbw_factor(CollectiveKind kind, int p) {
  if (p < 1) return 0;
  switch (kind) {
    case CollectiveKind::allreduce:
      return 2.0 * (p - 1) / p;
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::allgather:
    case CollectiveKind::alltoall:
      return static_cast<double>(p - 1) / p;
    default:
      return 1.0;
  }
}

bool reads_buffers_at_start(CollectiveKind kind) {
  return kind == CollectiveKind::alltoall || kind == CollectiveKind::permute;
}

int largest_group(const CollectiveRequest& request) {
  if (request.kind == CollectiveKind::permute) return request.permutation.empty() ? 0 : 2;
  int largest = 0;
  for (const auto& group : request.groups) largest = std::max(largest, group.size());
  return largest;
}

}  // namespace tpusim::sim
