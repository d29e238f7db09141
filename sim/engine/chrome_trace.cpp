#include "sim/engine/chrome_trace.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "topologies/support/atomic_file.hpp"

namespace tpusim::sim {

std::string chrome_trace_json(const topo::Topology& topology, const std::vector<TraceEvent>& events,
                              const std::vector<std::string>& labels) {
  nlohmann::json trace_events = nlohmann::json::array();
  const int cores = topology.cores_per_chip();
  for (int chip = 0; chip < topology.num_chips(); ++chip) {
    trace_events.push_back({{"name", "process_name"},
                            {"ph", "M"},
                            {"pid", chip},
                            {"args", {{"name", fmt::format("chip {}", chip)}}}});
  }
  for (const auto& e : events) {
    const double ts_us = e.start_s * 1e6;
    const double dur_us = (e.end_s - e.start_s) * 1e6;
    const auto& label = labels.at(e.label);
    if (e.src < 0) {
      trace_events.push_back({{"name", fmt::format("{}: {} folded rounds", label, e.bytes)},
                              {"ph", "X"},
                              {"pid", -1},
                              {"tid", 0},
                              {"ts", ts_us},
                              {"dur", dur_us}});
      continue;
    }
    trace_events.push_back({{"name", fmt::format("{} {}->{}", label, e.src, e.dst)},
                            {"cat", label},
                            {"ph", "X"},
                            {"pid", e.src / cores},
                            {"tid", e.src},
                            {"ts", ts_us},
                            {"dur", dur_us},
                            {"args", {{"bytes", e.bytes}, {"dst", e.dst}}}});
  }
  nlohmann::json out = {{"traceEvents", trace_events},
                        {"displayTimeUnit", "ns"},
                        {"otherData", {{"topology", topology.name()}, {"generator", "tpusim"}}}};
  return out.dump();
}

void write_chrome_trace_file(const std::string& path, const topo::Topology& topology,
                             const std::vector<TraceEvent>& events, const std::vector<std::string>& labels) {
  write_file_atomically(path, chrome_trace_json(topology, events, labels));
}

}  // namespace tpusim::sim
