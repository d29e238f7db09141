#include "workloads/report/chip_faults.hpp"

#include <fmt/format.h>

#include "topologies/support/text.hpp"

namespace tpusim::workloads {
namespace {

std::string straggler_text(double factor) { return fmt::format("straggler {:g}x slower", factor); }

}  // namespace

std::string ChipFaults::kind() const {
  std::vector<std::string> kinds;
  if (straggler_factor != 1) kinds.push_back(straggler_text(straggler_factor));
  if (!down_links.empty()) kinds.emplace_back("at a down link");
  if (!slow_links.empty()) kinds.emplace_back("at a slow link");
  return kinds.empty() ? kHealthyChip : join(kinds, " and ");
}

std::string ChipFaults::detail(const topo::Topology& topology) const {
  std::vector<std::string> items;
  if (straggler_factor != 1) items.push_back(straggler_text(straggler_factor));
  for (const int link : down_links)
    items.push_back(fmt::format("link {} down", topo::link_name(topology, link)));
  for (const int link : slow_links) {
    items.push_back(fmt::format("link {} at {:g} bandwidth", topo::link_name(topology, link),
                                topology.faults().bandwidth_factor(link)));
  }
  return items.empty() ? kHealthyChip : join(items);
}

std::vector<ChipFaults> faults_by_chip(const topo::Topology& topology) {
  const auto& faults = topology.faults();
  std::vector<ChipFaults> chips(static_cast<std::size_t>(topology.num_chips()));
  for (int chip = 0; chip < topology.num_chips(); ++chip) {
    chips[static_cast<std::size_t>(chip)].straggler_factor = faults.straggler_factor(chip);
  }
  const int dims = static_cast<int>(topology.chip_dims().size());
  // A link is numbered by the chip at its - end and its dimension; its + end is that chip's neighbour.
  auto add_at_both_ends = [&](int link, std::vector<int> ChipFaults::*list) {
    const int from = link / dims;
    const int to = topo::neighbour_chip(topology, from, 2 * (link % dims));
    (chips[static_cast<std::size_t>(from)].*list).push_back(link);
    if (to >= 0 && to != from) (chips[static_cast<std::size_t>(to)].*list).push_back(link);
  };
  for (const int link : faults.down_links()) add_at_both_ends(link, &ChipFaults::down_links);
  for (const auto& [link, factor] : faults.slow_links()) add_at_both_ends(link, &ChipFaults::slow_links);
  return chips;
}

}  // namespace tpusim::workloads
