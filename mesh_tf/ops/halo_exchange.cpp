#include "mesh_tf/ops/halo_exchange.hpp"

#include <vector>

#include "topologies/support/check.hpp"

namespace tpusim::mtf {
namespace {

// `v` with its tiles `rows` long along dim d.
Shape with_tile_rows(const Value& v, const MeshShape& mesh, int d, std::int64_t rows) {
  std::vector<Dimension> dims = v.layout.shape().dims();
  dims[d] = Dimension(dims[d].name, rows * mesh.dim_size(v.layout.mesh_dim_of(d)));
  return Shape(dims);
}

// Which tiles have a neighbour before (-1) or after (+1) them along mesh dim m, by slice key.
std::vector<char> has_neighbour(const Value& v, const MeshShape& mesh, int m, int direction) {
  std::vector<char> has(v.num_slices);
  for (int key = 0; key < v.num_slices; ++key) {
    const int p = v.coords_of_key(key, mesh)[m] + direction;
    has[key] = p >= 0 && p < mesh.dim_size(m);
  }
  return has;
}

// Rows [begin, begin + rows) of every tile of v along d, sent to the neighbour in `direction` (+1: the next
// processor along the mesh dim); returns the value each processor receives.
int send_rows(Lowerer& lowerer, const OpNode& op, int v, int d, std::int64_t begin, std::int64_t rows,
              int direction, const char* what) {
  const Value in = lowerer.value(v);
  const Shape shape = with_tile_rows(in, lowerer.mesh(), d, rows);
  const std::string name = in.name + "/" + what;
  const int send =
      lowerer.new_value(-1, name, lowerer.layout(name, shape, in.layout.mesh_dims()), in.dtype, in.pending);
  const Value& s = lowerer.value(send);
  const auto in_sizes = in.layout.slice_sizes(), sizes = s.layout.slice_sizes();
  const std::int64_t in_elems = in.layout.slice_elements(), elems = s.layout.slice_elements();
  const int slices = in.num_slices;
  lowerer
      .step(lowerer.add_compute(op, op.name + "/" + what, {v}, send, 0,
                                [=](Store& store) {
                                  store[send].resize(elems * slices);
                                  for (int key = 0; key < slices; ++key) {
                                    kernels::copy_block(store[v].data() + key * in_elems, in_sizes,
                                                        store[send].data() + key * elems, sizes, d, begin, 0,
                                                        rows);
                                  }
                                }))
      .fusion = FusionRole::none;
  return lowerer.permute(send, d, direction, false, op, "halo");
}

}  // namespace

int extend_halo(Lowerer& lowerer, const OpNode& op, int v, int d, std::int64_t before, std::int64_t after) {
  const Value in = lowerer.value(v);
  const MeshShape& mesh = lowerer.mesh();
  const int m = in.layout.mesh_dim_of(d);
  const std::int64_t len = in.layout.slice_sizes()[d];
  TPUSIM_CHECK(m >= 0 && before >= 0 && after >= 0 && before <= len && after <= len);
  // A tile's first rows come from the end of the previous tile, its last rows from the start of the next.
  const int from_previous =
      before > 0 ? send_rows(lowerer, op, v, d, len - before, before, +1, "halo_before") : -1;
  const int from_next = after > 0 ? send_rows(lowerer, op, v, d, 0, after, -1, "halo_after") : -1;
  const std::string extended = in.name + "/extended";
  const int out = lowerer.new_value(
      -1, extended,
      lowerer.layout(extended, with_tile_rows(in, mesh, d, before + len + after), in.layout.mesh_dims()),
      in.dtype, in.pending);
  const auto sizes = lowerer.value(out).layout.slice_sizes(), in_sizes = in.layout.slice_sizes();
  auto before_sizes = in_sizes, after_sizes = in_sizes;
  before_sizes[d] = before;
  after_sizes[d] = after;
  const std::int64_t elems = lowerer.value(out).layout.slice_elements(),
                     in_elems = in.layout.slice_elements();
  const std::int64_t before_elems = in_elems / len * before, after_elems = in_elems / len * after;
  const int slices = in.num_slices;
  const auto has_previous = has_neighbour(in, mesh, m, -1), has_next = has_neighbour(in, mesh, m, +1);
  std::vector<int> inputs = {v};
  if (from_previous >= 0) inputs.push_back(from_previous);
  if (from_next >= 0) inputs.push_back(from_next);
  lowerer
      .step(lowerer.add_compute(op, op.name + "/extend", inputs, out, 0,
                                [=](Store& s) {
                                  s[out].assign(elems * slices, 0.0f);
                                  for (int key = 0; key < slices; ++key) {
                                    float* dst = s[out].data() + key * elems;
                                    kernels::copy_block(s[v].data() + key * in_elems, in_sizes, dst, sizes, d,
                                                        0, before, len);
                                    if (from_previous >= 0 && has_previous[key]) {
                                      kernels::copy_block(s[from_previous].data() + key * before_elems,
                                                          before_sizes, dst, sizes, d, 0, 0, before);
                                    }
                                    if (from_next >= 0 && has_next[key]) {
                                      kernels::copy_block(s[from_next].data() + key * after_elems,
                                                          after_sizes, dst, sizes, d, 0, before + len, after);
                                    }
                                  }
                                }))
      .fusion = FusionRole::none;
  return out;
}

int fold_halo(Lowerer& lowerer, const OpNode& op, int v, int d, std::int64_t before, std::int64_t after,
              int tensor, const std::string& name) {
  const Value in = lowerer.value(v);
  const MeshShape& mesh = lowerer.mesh();
  const int m = in.layout.mesh_dim_of(d);
  const std::int64_t len = in.layout.slice_sizes()[d] - before - after;
  TPUSIM_CHECK(m >= 0 && before >= 0 && after >= 0 && before <= len && after <= len);
  // The rows before a tile are the previous tile's last rows; the rows after it the next tile's first rows.
  const int to_next_end = before > 0 ? send_rows(lowerer, op, v, d, 0, before, -1, "fold_before") : -1;
  const int to_previous_start =
      after > 0 ? send_rows(lowerer, op, v, d, before + len, after, +1, "fold_after") : -1;
  const std::string folded = tensor >= 0 ? name : in.name + "/folded";
  const int out = lowerer.new_value(
      tensor, folded, lowerer.layout(folded, with_tile_rows(in, mesh, d, len), in.layout.mesh_dims()),
      in.dtype, in.pending);
  const auto sizes = lowerer.value(out).layout.slice_sizes(), in_sizes = in.layout.slice_sizes();
  const std::int64_t elems = lowerer.value(out).layout.slice_elements(),
                     in_elems = in.layout.slice_elements();
  const std::int64_t before_elems = elems / len * before, after_elems = elems / len * after;
  const int slices = in.num_slices;
  // Received rows are added where they belong: a tile gets the previous-halo rows of the tile after it.
  // The adds are memory-bound and, like extend's copies, counted as traffic only: the op's FLOPs stay those
  // of its windows under any split.
  const auto has_previous = has_neighbour(in, mesh, m, -1), has_next = has_neighbour(in, mesh, m, +1);
  std::vector<int> inputs = {v};
  if (to_next_end >= 0) inputs.push_back(to_next_end);
  if (to_previous_start >= 0) inputs.push_back(to_previous_start);
  lowerer
      .step(lowerer.add_compute(
          op, op.name + "/fold", inputs, out, 0,
          [=](Store& s) {
            s[out].resize(elems * slices);
            const kernels::AxisView view(sizes, d);
            for (int key = 0; key < slices; ++key) {
              float* dst = s[out].data() + key * elems;
              kernels::copy_block(s[v].data() + key * in_elems, in_sizes, dst, sizes, d, before, 0, len);
              // src holds `count` rows laid out as the tile's: its row r is added to the tile's row first_row
              // + r.
              const auto add_rows = [&](const float* src, std::int64_t count, std::int64_t first_row) {
                for (std::int64_t p = 0; p < view.pre; ++p) {
                  for (std::int64_t r = 0; r < count; ++r) {
                    const float* from = src + (p * count + r) * view.post;
                    float* to = dst + view.at(p, first_row + r, 0);
                    for (std::int64_t q = 0; q < view.post; ++q) to[q] += from[q];
                  }
                }
              };
              if (to_next_end >= 0 && has_next[key]) {
                add_rows(s[to_next_end].data() + key * before_elems, before, len - before);
              }
              if (to_previous_start >= 0 && has_previous[key]) {
                add_rows(s[to_previous_start].data() + key * after_elems, after, 0);
              }
            }
          }))
      .fusion = FusionRole::none;
  return out;
}

}  // namespace tpusim::mtf
