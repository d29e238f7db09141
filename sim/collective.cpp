#include "sim/collective.hpp"

#include <fmt/format.h>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::sim {
namespace {

const std::vector<std::pair<CollectiveKind, const char*>>& kind_names() {
  static const std::vector<std::pair<CollectiveKind, const char*>> names = {
      {CollectiveKind::allreduce, "allreduce"}, {CollectiveKind::reduce_scatter, "reduce_scatter"},
      {CollectiveKind::allgather, "allgather"}, {CollectiveKind::alltoall, "alltoall"},
      {CollectiveKind::broadcast, "broadcast"}, {CollectiveKind::permute, "permute"}};
  return names;
}

}  // namespace

const char* to_string(CollectiveKind kind) {
  for (const auto& [k, name] : kind_names()) {
    if (k == kind) return name;
  }
  return "?";
}

CollectiveKind parse_collective_kind(const std::string& name) {
  std::vector<std::string> valid;
  for (const auto& [kind, text] : kind_names()) {
    if (name == text) return kind;
    valid.push_back(text);
  }
  throw InputError(fmt::format("unknown collective '{}'{}; valid collectives are {}", name,
                               did_you_mean(name, valid), join(valid)));
}

}  // namespace tpusim::sim
