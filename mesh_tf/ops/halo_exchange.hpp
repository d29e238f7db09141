#pragma once
// Internal to mesh_tf: halo exchange along one tensor dim split over a mesh dim. A tile is extended by the
// rows its neighbours hold next to it (`before` rows from the processor before it along the mesh dim, `after`
// from the one after it), and the adjoint folds an extended tile's halo rows back onto the neighbours that
// own them, adding them. Each direction is one collective permute; tiles at the ends of a non-wrapping dim
// get zeros where no neighbour is. As XLA's SPMD partitioner lowers windowed ops (ExchangeHalo in
// xla/service/spmd/spmd_partitioner_util.cc: a slice of each neighbour's edge, a collective-permute per
// direction, a concatenate), so the copies are timed as HBM traffic like any local step.
#include <cstdint>
#include <string>

#include "mesh_tf/lowering.hpp"

namespace tpusim::mtf {

// A value like `v`, each tile `before + local + after` rows long along dim d.
int extend_halo(Lowerer& lowerer, const OpNode& op, int v, int d, std::int64_t before, std::int64_t after);
// A value whose tiles are `v`'s without the halos along dim d, each halo row added to its owner's row; it
// lays out graph tensor `tensor` when one is given (-1: a temporary named after v).
int fold_halo(Lowerer& lowerer, const OpNode& op, int v, int d, std::int64_t before, std::int64_t after,
              int tensor = -1, const std::string& name = "");

}  // namespace tpusim::mtf
