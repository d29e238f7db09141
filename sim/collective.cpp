#include "sim/collective.hpp"

#include <fmt/format.h>

#include "sim/algorithm_registry.hpp"
#include "topologies/support/check.hpp"
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

const NameTable<ReduceOp>& reduce_ops() {
  static const NameTable<ReduceOp> table("reduction", {{"sum", ReduceOp::sum}, {"max", ReduceOp::max}});
  return table;
}

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

const AlgorithmRow& AlgorithmRef::row() const {
  TPUSIM_CHECK(row_ != nullptr);
  return *row_;
}

const char* AlgorithmRef::name() const { return row_ == nullptr ? kAutoAlgorithm : row_->name; }

std::string algorithm_list(const std::vector<AlgorithmRef>& algorithms) {
  std::string list;
  for (const auto& algorithm : algorithms) {
    if (!list.empty()) list += ',';
    list += algorithm.name();
  }
  return list;
}

}  // namespace tpusim::sim
