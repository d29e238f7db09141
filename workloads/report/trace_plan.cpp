#include "workloads/report/trace_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "topologies/support/text.hpp"
#include "workloads/report/chip_faults.hpp"

namespace tpusim::workloads {

std::string chip_ranges(const std::vector<int>& chips) {
  std::vector<std::string> ranges;
  for (std::size_t i = 0; i < chips.size();) {
    std::size_t j = i;
    while (j + 1 < chips.size() && chips[j + 1] == chips[j] + 1) ++j;
    ranges.push_back(j == i ? std::to_string(chips[i]) : fmt::format("{}-{}", chips[i], chips[j]));
    i = j + 1;
  }
  return join(ranges);
}

std::string TracePlan::summary() const {
  if (left_out.empty()) return "";
  if (selection.mode == TraceChipsMode::first) {
    const std::size_t shown = processes.size();
    return fmt::format(": {} of {}, which all run the same timeline; --trace-chips all writes every chip",
                       shown == 1 ? "chip 0" : fmt::format("chips 0-{}", shown - 1), pod_chips);
  }
  if (processes.size() == 1) {
    return fmt::format(
        ": chip {}'s tracks, standing for all {} chips, which run the same timeline; --trace-chips all "
        "writes every chip",
        processes.front().chip, pod_chips);
  }
  std::vector<std::string> classes;
  for (const auto& process : processes)
    classes.push_back(fmt::format("{} {}", process.chips.size(), process.faults));
  return fmt::format(
      ": {} track sets for the {} chips, one per class: {}; --trace-chips all writes every chip",
      processes.size(), pod_chips, join(classes));
}

TracePlan plan_trace(const topo::Topology& topology, const TraceSelection& selection) {
  TracePlan plan;
  plan.selection = selection;
  plan.pod_chips = topology.num_chips();
  const auto faults = faults_by_chip(topology);
  if (selection.mode != TraceChipsMode::classes) {
    const int shown = selection.mode == TraceChipsMode::first
                          ? std::min(selection.first_chips, plan.pod_chips)
                          : plan.pod_chips;
    for (int chip = 0; chip < plan.pod_chips; ++chip) {
      if (chip < shown) {
        plan.processes.push_back({chip, {chip}, faults[static_cast<std::size_t>(chip)].kind()});
      } else {
        plan.left_out.push_back(chip);
      }
    }
    return plan;
  }
  // Chips are in ascending order within each class, so a class's first chip is its lowest.
  std::map<std::string, std::vector<int>> classes;
  for (int chip = 0; chip < plan.pod_chips; ++chip) {
    classes[faults[static_cast<std::size_t>(chip)].kind()].push_back(chip);
  }
  for (auto& [kind, chips] : classes) plan.processes.push_back({chips.front(), chips, kind});
  std::sort(plan.processes.begin(), plan.processes.end(), [](const TraceProcess& a, const TraceProcess& b) {
    const bool a_healthy = a.faults == kHealthyChip, b_healthy = b.faults == kHealthyChip;
    return a_healthy != b_healthy ? a_healthy : a.chip < b.chip;
  });
  for (const auto& process : plan.processes) {
    plan.left_out.insert(plan.left_out.end(), process.chips.begin() + 1, process.chips.end());
  }
  std::sort(plan.left_out.begin(), plan.left_out.end());
  return plan;
}

}  // namespace tpusim::workloads
