#pragma once
// A CollectiveRequest from the words a user types on the command line (tpusim collective, validate, bench):
// the collective, the algorithm names, a size and group axes. Checks everything before any simulation starts.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/collective.hpp"
#include "sim/simulator.hpp"
#include "topologies/topology.hpp"

namespace tpusim::workloads {

struct CollectiveSpec {
  std::string op = "allreduce";
  std::string
      algorithms;  // one name, or comma-separated one per group dimension; "" = the registry's default
  std::string bytes = "64MiB";  // per member, a multiple of 4 (fp32 elements)
  std::string group_axes;       // "" = topo::default_group_axes
  std::string reduce = "sum";   // sum | max
};

struct BuiltRequest {
  sim::CollectiveRequest request;  // its algorithms resolved to their rows (or auto)
  std::string group_axes;          // resolved, e.g. "core+x,y"
  bool chosen_by_auto = false;     // the algorithms were "auto" (sim/algorithm_choice.hpp)
  // "auto" not yet resolved: what it stands for, each with its algorithms named (and its own group axes when
  // none were given); resolve_auto picks one. Empty once resolved or without auto.
  std::vector<BuiltRequest> auto_candidates;

  std::vector<std::string> algorithm_names() const;  // the request's (never empty: the default is named)
};

// The topology a collective runs on when none is named (tpusim collective, a collective study's point): the
// run config's default (hardware.topology in config_schema.hpp).
std::string default_collective_topology();
// The network model it runs on when none is named: the simulator's default.
std::string default_collective_network();

// Throws InputError naming the bad word and what is valid. Permute moves every member's buffer to the next
// member of its group (a shift by one). "auto" (alone, or in place of some per-dimension names) leaves the
// candidates it stands for in auto_candidates, each checked; alone and without group axes, every algorithm on
// its default group axes.
BuiltRequest build_request(const topo::Topology& topology, const CollectiveSpec& spec);

// A collective's message per member, in bytes: a whole number of 4-byte fp32 elements, at most 1 PiB (more
// than any pod's memory: a larger figure is a typo, and its rounds would not fit a double's precision).
// Throws InputError naming `text`.
inline constexpr std::uint64_t kMaxCollectiveBytes = std::uint64_t{1} << 50;
std::uint64_t parse_collective_bytes(const std::string& text);

// The fastest of built's auto candidates on the simulator (sim::fastest), or built itself without auto.
BuiltRequest resolve_auto(sim::Simulator& simulator, BuiltRequest built);

}  // namespace tpusim::workloads
