#include "workloads/report/trace_selection.hpp"

#include <fmt/format.h>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/topology.hpp"

namespace tpusim::workloads {

TraceSelection parse_trace_selection(const std::string& text) {
  if (text == "classes") return {TraceChipsMode::classes, 0};
  if (text == "all") return {TraceChipsMode::all, 0};
  int chips = -1;
  try {
    chips = static_cast<int>(parse_whole_number(text, 0, topo::kMaxChips));
  } catch (const InputError&) {
  }
  if (chips < 0) {
    throw InputError(fmt::format(
        "'{}' is not a choice of chips: expected classes (one track set per class of chips), all, or how "
        "many of the first chips to write (1 to {}; 0 is all)",
        text, topo::kMaxChips));
  }
  if (chips == 0) return {TraceChipsMode::all, 0};
  return {TraceChipsMode::first, chips};
}

std::string to_string(const TraceSelection& selection) {
  switch (selection.mode) {
    case TraceChipsMode::classes:
      return "classes";
    case TraceChipsMode::all:
      return "all";
    case TraceChipsMode::first:
      break;
  }
  return fmt::format("first {}", selection.first_chips);
}

}  // namespace tpusim::workloads
