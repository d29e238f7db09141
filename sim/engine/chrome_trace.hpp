#pragma once
// sim-private: Chrome trace format (JSON, loads in Perfetto and chrome://tracing). One complete event ("X")
// per transfer, on the track of its source core (process = chip, thread = core); a span of folded rounds is
// one event on the "folded rounds" track.
#include <string>
#include <vector>

#include "sim/engine/executor.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

std::string chrome_trace_json(const topo::Topology& topology, const std::vector<TraceEvent>& events,
                              const std::vector<std::string>& labels);
void write_chrome_trace_file(const std::string& path, const topo::Topology& topology,
                             const std::vector<TraceEvent>& events, const std::vector<std::string>& labels);

}  // namespace tpusim::sim
