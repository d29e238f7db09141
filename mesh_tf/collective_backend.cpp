#include "mesh_tf/collective_backend.hpp"

#include <fmt/format.h>

#include "topologies/support/check.hpp"

namespace tpusim::mtf {
namespace {

int group_size(const std::vector<int>& mesh_dims, const MeshShape& mesh) {
  int size = 1;
  for (const int m : mesh_dims) size *= mesh.dim_size(m);
  return size;
}

// cross_replica_sum's element size on the TPU backend.
std::uint32_t summed_bytes(DType dtype, int group) {
  return dtype == DType::bfloat16 && group > kBfloat16AllreduceMaxGroup ? 4 : dtype_bytes(dtype);
}

}  // namespace

const NameTable<CollectiveBackend>& collective_backends() {
  static const NameTable<CollectiveBackend> table(
      "collective backend",
      {{"mesh_tf_tpu", CollectiveBackend::mesh_tf_tpu}, {"ideal", CollectiveBackend::ideal}});
  return table;
}

std::vector<IssuedCollective> issue(CollectiveBackend backend, CollectiveOp op, sim::ReduceOp reduce,
                                    DType dtype, const std::vector<int>& mesh_dims, const MeshShape& mesh,
                                    std::uint64_t elements_per_core) {
  const auto bytes = static_cast<std::uint32_t>(dtype_bytes(dtype));
  const int group = group_size(mesh_dims, mesh);
  auto one = [&](sim::CollectiveKind kind, sim::ReduceOp how_reduced, std::uint32_t element_bytes,
                 std::string how = "") {
    return std::vector<IssuedCollective>{
        {kind, how_reduced, mesh_dims, elements_per_core, element_bytes, std::move(how)}};
  };
  // XLA's weight-update sharding collectives (program.hpp): itself in every backend, a reduce-scatter of a
  // sum in the allreduce's element size.
  if (op == CollectiveOp::reduce_scatter) {
    const std::uint32_t summed = backend == CollectiveBackend::ideal ? bytes : summed_bytes(dtype, group);
    return one(sim::CollectiveKind::reduce_scatter, reduce, summed, summed != bytes ? "in float32" : "");
  }
  if (op == CollectiveOp::allgather) return one(sim::CollectiveKind::allgather, reduce, bytes);
  if (backend == CollectiveBackend::ideal) {
    switch (op) {
      case CollectiveOp::allreduce:
        return one(sim::CollectiveKind::allreduce, reduce, bytes);
      case CollectiveOp::allconcat:
        return one(sim::CollectiveKind::allgather, reduce, bytes);
      case CollectiveOp::alltoall:
        return one(sim::CollectiveKind::alltoall, reduce, bytes);
      case CollectiveOp::permute:
        return one(sim::CollectiveKind::permute, reduce, bytes);
      default:
        break;
    }
  }
  switch (op) {
    case CollectiveOp::allreduce: {
      if (reduce == sim::ReduceOp::sum) {
        const std::uint32_t summed = summed_bytes(dtype, group);
        return one(sim::CollectiveKind::allreduce, reduce, summed, summed != bytes ? "in float32" : "");
      }
      std::vector<IssuedCollective> per_dim;
      for (const int m : mesh_dims) {
        const int copies = mesh.dim_size(m);
        per_dim.push_back({sim::CollectiveKind::allreduce,
                           sim::ReduceOp::sum,
                           {m},
                           elements_per_core * static_cast<std::uint64_t>(copies),
                           summed_bytes(dtype, copies),
                           fmt::format("masked allconcat of {} copies over {}, then a local max", copies,
                                       mesh.dim_name(m))});
      }
      return per_dim;
    }
    case CollectiveOp::allconcat:
      return one(sim::CollectiveKind::allreduce, sim::ReduceOp::sum, summed_bytes(dtype, group),
                 fmt::format("masked allreduce of {} copies", group));
    case CollectiveOp::alltoall:
      return one(sim::CollectiveKind::alltoall, reduce, 2, dtype == DType::float32 ? "as bfloat16" : "");
    case CollectiveOp::permute:
      return one(sim::CollectiveKind::permute, reduce, bytes);
    default:
      break;
  }
  TPUSIM_CHECK(false);
  return {};
}

}  // namespace tpusim::mtf
