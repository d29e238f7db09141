#pragma once
// Multislice pods: several slices, each its own ICI torus or mesh (a preset or a kind:dims spec), joined by
// the data-centre network (DCN), as Cloud TPU multislice training runs them
// (https://cloud.google.com/tpu/docs/multislice-introduction). Every chip has a DCN NIC to a non-blocking
// data-centre fabric: dcn_bw is its bandwidth each way, dcn_lat the latency from NIC to NIC. The chips of one
// slice are numbered as on the slice alone; slice s holds chips s * chips_per_slice onwards
// (rank_mapping.hpp), and groups and meshes see the slices as the physical axis "slice" after x, y, z.
//
// Spelling (no comma before the keys, so that it survives YAML flow lists):
//   multislice:<N>x<preset>            multislice:4xtpu-v5p-cube
//   multislice:<N>x(<kind>:<dims>)     multislice:2x(torus:8x8)
// followed by the keys of topology_from_spec (cores, bw, lat, intra_bw, intra_lat: they apply to every slice)
// and dcn_bw, dcn_lat: multislice:2xtpu-v5e-256,dcn_bw=6.25GB/s,dcn_lat=20us.
#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace tpusim::topo {

inline constexpr const char* kMultislicePrefix = "multislice:";

// Whether a spec's base is a multislice one (starts with "multislice:").
bool is_multislice_spec(const std::string& spec);
// InputError naming the spec and the problem for every malformed form.
Topology multislice_from_spec(const std::string& spec);

// The DCN figures a slice gets when the spec gives none (multislice.cpp gives their sources).
LinkParams default_dcn(const Topology& slice);

// Named multislice pods (2, 4 and 8 slices of tpu-v5e-256 and of tpu-v5p-cube), kept apart from
// preset_names() (whose pods `tpusim topo` tabulates, slice by slice figures being what multislice adds).
std::vector<std::string> multislice_preset_names();
bool is_multislice_preset(const std::string& name);
Topology multislice_preset(const std::string& name);  // InputError listing the valid names
std::string multislice_preset_description(const std::string& name);
// The spec a multislice preset stands for ("multislice:2xtpu-v5e-256"), so that keys may follow its name.
std::string multislice_preset_spec(const std::string& name);

}  // namespace tpusim::topo
