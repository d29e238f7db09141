#pragma once
// Named topologies. TPU figures from Jouppi et al. (CACM 2020), see mesh_tf/README.md, The paper's figures:
//   tpu-v2-pod: 16x16 torus, 2 cores/chip, 496 Gbit/s per inter-chip link direction.
//   tpu-v3-pod: 32x32 torus, 2 cores/chip, 656 Gbit/s.
// TPU v4, v5e, v5p and v6e slices and pods follow Google Cloud's pages, each figure cited beside its link in
// presets.cpp (tpu-v5e-256: 16x16 torus, 400 Gbit/s; tpu-v5p-cube: 4x4x4 torus, 800 Gbit/s; tpu-v6e-256:
// 16x16 torus, 800 Gbit/s; one core per chip on these three generations).
// Small ones (ring-8, torus-4x4, torus-8x8, torus-4x4x4, mesh-4x4, ...) are for tests and examples.
#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace tpusim::topo {

std::vector<std::string> preset_names();
Topology preset(const std::string& name);  // InputError listing the valid names
// "TPU v2 pod: 16x16 chip 2D torus, 2 cores per chip (512 cores)"; InputError as preset().
std::string preset_description(const std::string& name);

// A preset name, or a spec "torus:16x16", "mesh:4x4", "ring:8", with optional ",cores=..,bw=..,lat=.."
// overrides; see topology_from_spec in presets.cpp for the grammar.
Topology topology_from_spec(const std::string& spec);

// The keys a spec's ",key=value" parts may name (cores, bw, lat, ...), in the order errors list them.
const std::vector<std::string>& topology_spec_keys();

}  // namespace tpusim::topo
