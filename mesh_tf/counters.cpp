#include "mesh_tf/counters.hpp"

#include <fmt/format.h>

#include <map>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::mtf {

std::string CollectiveRecord::key() const {
  return fmt::format("{}/{}/{}", sim::to_string(kind), join(mesh_dims, ","), reason);
}

std::uint64_t Counters::elements(sim::CollectiveKind kind, const std::vector<std::string>& mesh_dims) const {
  std::uint64_t total = 0;
  for (const auto& c : collectives) {
    if (c.kind == kind && c.mesh_dims == mesh_dims) total += c.elements_per_core;
  }
  return total;
}

std::map<std::string, std::uint64_t> Counters::by_key() const {
  std::map<std::string, std::uint64_t> out;
  for (const auto& c : collectives) out[c.key()] += c.elements_per_core;
  return out;
}

std::uint64_t Counters::variable_bytes_per_core() const {
  std::uint64_t total = 0;
  for (const auto& t : tensors) {
    if (t.is_variable && !t.is_optimizer_slot) total += t.slice_bytes_per_core;
  }
  return total;
}

std::uint64_t Counters::optimizer_state_bytes_per_core() const {
  std::uint64_t total = 0;
  for (const auto& t : tensors) {
    if (t.is_optimizer_slot) total += t.slice_bytes_per_core;
  }
  return total;
}

std::uint64_t Counters::kept_activation_bytes_per_core() const {
  std::uint64_t total = 0;
  for (const auto& t : tensors) {
    if (t.kept_for_backward) total += t.slice_bytes_per_core;
  }
  return total;
}

std::string Counters::summary() const {
  std::string out =
      fmt::format("FLOPs per core {:.4g}; variables {} per core, optimizer state {}, kept activations {}\n",
                  flops_per_core, format_bytes(static_cast<double>(variable_bytes_per_core())),
                  format_bytes(static_cast<double>(optimizer_state_bytes_per_core())),
                  format_bytes(static_cast<double>(kept_activation_bytes_per_core())));
  struct Row {
    int count = 0;
    std::uint64_t elements = 0, bytes = 0;
  };
  std::map<std::string, Row> rows;
  for (const auto& c : collectives) {
    Row& row = rows[c.key()];
    ++row.count;
    row.elements += c.elements_per_core;
    row.bytes += c.bytes_per_core;
  }
  out += fmt::format("  {:<40} {:>6} {:>16} {:>12}\n", "collective/mesh dims/cause", "count", "elements/core",
                     "bytes/core");
  for (const auto& [key, row] : rows) {
    out += fmt::format("  {:<40} {:>6} {:>16} {:>12}\n", key, row.count, row.elements,
                       format_bytes(static_cast<double>(row.bytes)));
  }
  return out;
}

}  // namespace tpusim::mtf
