#pragma once
// How much memory simulating on a pod takes, estimated from its size alone, before anything is built, and
// the limit above which tpusim refuses the pod rather than grow for minutes and die. Measured peak RSS of
// `tpusim collective` (SimGrid 3.32): about 9 KiB per chip (its SimGrid host, links and routes) and 3 KiB
// per core (the executor's per-rank queues and the collective's groups). The largest TPU pods (2048 cores)
// need about 15 MiB; torus:256x256,cores=64 (4M cores) would need 12.6 GiB.
#include "topologies/topology.hpp"

namespace tpusim::topo {

constexpr double kSimulationBytesPerChip = 9 * 1024.0;
constexpr double kSimulationBytesPerCore = 3 * 1024.0;
constexpr double kMaxSimulationBytes = 4.0 * (1u << 30);

double estimated_simulation_bytes(const Topology& topology);

// Throws InputError naming the estimate, the limit and the largest core count that fits, when simulating
// on `topology` would need more than kMaxSimulationBytes.
void require_simulation_fits(const Topology& topology);

}  // namespace tpusim::topo
