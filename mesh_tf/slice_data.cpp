#include "mesh_tf/slice_data.hpp"

#include <algorithm>

#include "mesh_tf/local_kernels.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::mtf {
namespace {

// Calls f(local_index, global_index) for every element of the slice at mesh coordinates `coords`.
template <class F>
void for_each_element(const Value& v, const std::vector<int>& coords, F f) {
  const int rank = v.layout.shape().rank();
  std::vector<std::int64_t> index(rank, 0), offset(rank);
  for (int d = 0; d < rank; ++d) offset[d] = v.offset(d, coords);
  for (std::int64_t i = 0; i < v.layout.slice_elements(); ++i) {
    std::int64_t global = 0;
    for (int d = 0; d < rank; ++d) global = global * v.layout.shape()[d].size + offset[d] + index[d];
    f(i, global);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < v.layout.slice_sizes()[d]) break;
      index[d] = 0;
    }
  }
}

int representative_rank(const Value& out, int key, const MeshMapping& mapping) {
  const MeshShape& mesh = mapping.mesh();
  return mapping.rank_of(mesh.processor_index(out.coords_of_key(key, mesh)));
}

}  // namespace

std::vector<float> assemble(const Value& value, const std::vector<float>& data, const MeshShape& mesh) {
  std::vector<float> full(value.layout.shape().num_elements(), 0.0f);
  if (data.empty()) return full;
  // A key is a distinct slice; along pending dims the slices are partial sums to add, along split dims they
  // tile.
  for (int key = 0; key < value.num_slices; ++key) {
    const auto coords = value.coords_of_key(key, mesh);
    const float* src = data.data() + key * value.layout.slice_elements();
    for_each_element(value, coords, [&](std::int64_t i, std::int64_t g) { full[g] += src[i]; });
  }
  return full;
}

std::vector<float> scatter(const Value& value, const std::vector<float>& full, const MeshShape& mesh) {
  TPUSIM_CHECK(value.pending.empty());
  TPUSIM_CHECK(static_cast<std::int64_t>(full.size()) == value.layout.shape().num_elements());
  std::vector<float> data(value.layout.slice_elements() * value.num_slices);
  for (int key = 0; key < value.num_slices; ++key) {
    const auto coords = value.coords_of_key(key, mesh);
    float* dst = data.data() + key * value.layout.slice_elements();
    for_each_element(value, coords, [&](std::int64_t i, std::int64_t g) { dst[i] = full[g]; });
  }
  return data;
}

sim::Buffers pack(const Step& step, const Program& program, const Store& store, const MeshMapping& mapping) {
  const Value& in = program.values[step.inputs[0]];
  const MeshShape& mesh = mapping.mesh();
  const std::vector<float>& src_all = store[in.id];
  sim::Buffers data;
  for (int p = 0; p < mesh.size(); ++p) {
    const auto coords = mesh.processor_coords(p);
    const float* src = src_all.data() + in.key_of(coords, mesh) * in.layout.slice_elements();
    std::vector<float>& buffer = data[mapping.rank_of(p)];
    switch (step.collective) {
      case CollectiveOp::allreduce:
      case CollectiveOp::permute:
        buffer.assign(src, src + in.layout.slice_elements());
        break;
      case CollectiveOp::allconcat:
      case CollectiveOp::allgather: {
        const int k = mesh.dim_size(step.mesh_dims[0]);
        buffer.assign(in.layout.slice_elements() * k, 0.0f);
        std::copy(src, src + in.layout.slice_elements(),
                  buffer.begin() + coords[step.mesh_dims[0]] * in.layout.slice_elements());
        break;
      }
      case CollectiveOp::alltoall:
      case CollectiveOp::reduce_scatter: {  // chunk j: the block j along the dim newly split
        const int k = mesh.dim_size(step.mesh_dims[0]);
        const int d2 = step.collective == CollectiveOp::alltoall ? step.tensor_dim2 : step.tensor_dim;
        auto chunk_sizes = in.layout.slice_sizes();
        chunk_sizes[d2] /= k;
        const std::int64_t chunk = in.layout.slice_elements() / k;
        buffer.resize(in.layout.slice_elements());
        for (int j = 0; j < k; ++j) {
          kernels::copy_block(src, in.layout.slice_sizes(), buffer.data() + j * chunk, chunk_sizes, d2,
                              j * chunk_sizes[d2], 0, chunk_sizes[d2]);
        }
        break;
      }
    }
  }
  return data;
}

std::vector<std::pair<topo::Rank, topo::Rank>> permute_pairs(const Step& step, const MeshMapping& mapping) {
  const MeshShape& mesh = mapping.mesh();
  const int m = step.mesh_dims[0];
  const int k = mesh.dim_size(m);
  const int direction = step.shift_offset > 0 ? 1 : -1;
  std::vector<std::pair<topo::Rank, topo::Rank>> pairs;
  for (int p = 0; p < mesh.size(); ++p) {
    auto coords = mesh.processor_coords(p);
    int dest = coords[m] + direction;
    if (dest < 0 || dest >= k) {
      if (!step.shift_wrap) continue;
      dest = (dest + k) % k;
    }
    coords[m] = dest;
    if (k == 1) continue;
    pairs.emplace_back(mapping.rank_of(p), mapping.rank_of(mesh.processor_index(coords)));
  }
  return pairs;
}

void unpack(const Step& step, const Program& program, const sim::Buffers& data, Store& store,
            const MeshMapping& mapping) {
  const Value& in = program.values[step.inputs[0]];
  const Value& out = program.values[step.output];
  std::vector<float>& dst_all = store[out.id];
  dst_all.assign(out.layout.slice_elements() * out.num_slices, 0.0f);
  const MeshShape& mesh = mapping.mesh();
  for (int key = 0; key < out.num_slices; ++key) {
    const std::vector<float>& buffer = data.at(representative_rank(out, key, mapping));
    float* dst = dst_all.data() + key * out.layout.slice_elements();
    switch (step.collective) {
      case CollectiveOp::allreduce:
      case CollectiveOp::permute:
        std::copy(buffer.begin(), buffer.begin() + out.layout.slice_elements(), dst);
        break;
      case CollectiveOp::reduce_scatter: {  // this core's chunk: its coordinate's
        const auto coords = out.coords_of_key(key, mesh);
        const std::int64_t chunk = in.layout.slice_elements() / mesh.dim_size(step.mesh_dims[0]);
        std::copy(buffer.begin() + coords[step.mesh_dims[0]] * chunk,
                  buffer.begin() + (coords[step.mesh_dims[0]] + 1) * chunk, dst);
        break;
      }
      case CollectiveOp::allconcat:
      case CollectiveOp::allgather: {
        const int k = mesh.dim_size(step.mesh_dims[0]);
        const int d = step.tensor_dim;
        for (int i = 0; i < k; ++i) {
          kernels::copy_block(buffer.data() + i * in.layout.slice_elements(), in.layout.slice_sizes(), dst,
                              out.layout.slice_sizes(), d, 0, i * in.layout.slice_sizes()[d],
                              in.layout.slice_sizes()[d]);
        }
        break;
      }
      case CollectiveOp::alltoall: {
        const int k = mesh.dim_size(step.mesh_dims[0]);
        const int d1 = step.tensor_dim;
        auto chunk_sizes = in.layout.slice_sizes();
        chunk_sizes[step.tensor_dim2] /= k;
        const std::int64_t chunk = in.layout.slice_elements() / k;
        for (int i = 0; i < k; ++i) {
          kernels::copy_block(buffer.data() + i * chunk, chunk_sizes, dst, out.layout.slice_sizes(), d1, 0,
                              i * chunk_sizes[d1], chunk_sizes[d1]);
        }
        break;
      }
    }
  }
}

}  // namespace tpusim::mtf
