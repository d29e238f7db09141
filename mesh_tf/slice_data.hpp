#pragma once
// Moving whole tensors in and out of their slices, and the data side of each collective: packing slices into
// per-rank buffers for sim::Simulator (or sim::reference_result without a simulator), unpacking the results.
#include <map>
#include <vector>

#include "mesh_tf/mesh_mapping.hpp"
#include "mesh_tf/program.hpp"
#include "sim/collective.hpp"

namespace tpusim::mtf {

// Full row-major tensor from a value's slices; pending partial sums are added up.
std::vector<float> assemble(const Value& value, const std::vector<float>& data, const MeshShape& mesh);
// Slices of a full row-major tensor (value must have nothing pending).
std::vector<float> scatter(const Value& value, const std::vector<float>& full, const MeshShape& mesh);

// Per-rank buffers for the collective `step` of the lowered program (every rank takes part).
sim::Buffers pack(const Step& step, const Program& program, const Store& store, const MeshMapping& mapping);
// The pairs of a permute step (source rank, destination rank).
std::vector<std::pair<topo::Rank, topo::Rank>> permute_pairs(const Step& step, const MeshMapping& mapping);
// The output value's slices from the exchanged buffers.
void unpack(const Step& step, const Program& program, const sim::Buffers& data, Store& store,
            const MeshMapping& mapping);

}  // namespace tpusim::mtf
