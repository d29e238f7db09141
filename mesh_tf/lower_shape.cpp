// Lowering of layout-changing and axis ops: reshape/rename, shift, concat/slice/pad, cumsum, one_hot.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "mesh_tf/lowering.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

std::vector<std::int64_t> prefix_products(const Shape& shape) {
  std::vector<std::int64_t> pre;
  std::int64_t p = 1;
  for (const auto& dim : shape.dims()) {
    pre.push_back(p);
    p *= dim.size;
  }
  return pre;
}

// (pre, rows, post) view of a slice along dim d.
struct AxisView {
  std::int64_t pre = 1, rows = 1, post = 1;
  AxisView(const std::vector<std::int64_t>& sizes, int d) {
    for (int i = 0; i < d; ++i) pre *= sizes[i];
    rows = sizes[d];
    for (std::size_t i = d + 1; i < sizes.size(); ++i) post *= sizes[i];
  }
};

}  // namespace

void Lowerer::lower_reshape(const OpNode& op) {
  const TensorNode& t = graph_.tensor(op.output);
  const std::vector<int> out_dims = rule_mesh_dims(t.id);
  const int x = input_value(op, 0);
  const Shape in_shape = value(x).shape;
  // A mesh dim can stay on a dimension that keeps its place in the row-major order (same size, same product
  // of the sizes before it): then the local reshape of slices is the slice of the reshape.
  const auto pre_in = prefix_products(in_shape), pre_out = prefix_products(t.shape);
  std::vector<int> mid_in(in_shape.rank(), -1), mid_out(t.shape.rank(), -1);
  for (int j = 0; j < t.shape.rank(); ++j) {
    if (out_dims[j] < 0) continue;
    for (int i = 0; i < in_shape.rank(); ++i) {
      if (in_shape[i].size == t.shape[j].size && pre_in[i] == pre_out[j]) {
        mid_in[i] = out_dims[j];
        mid_out[j] = out_dims[j];
        break;
      }
    }
  }
  const int aligned = relayout(x, mid_in, op);
  const int local = new_value(t.id, t.name, t.shape, t.dtype, mid_out);
  const std::int64_t n = value(local).slice_elements * value(local).num_slices;
  TPUSIM_CHECK(n == value(aligned).slice_elements * value(aligned).num_slices);
  add_compute(op, op.name, {aligned}, local, 0, [=](Store& s) { s[local] = s[aligned]; });
  program_.raw_value_of_tensor[t.id] = relayout(local, out_dims, op);
}

void Lowerer::lower_shift(const OpNode& op) {
  const TensorNode& t = graph_.tensor(op.output);
  const int x = input_value(op, 0);
  const Value in = value(x);
  const int d = in.shape.index_of(op.dim);
  const int m = in.mesh_dims[d];
  const std::int64_t o = op.begin;
  const std::int64_t len = in.local_sizes[d];
  const bool wrap = op.flag;
  const auto sizes = in.local_sizes;
  const std::int64_t elems = in.slice_elements;
  const int slices = in.num_slices;
  const std::int64_t a = std::abs(o);
  if (m < 0 || mesh_.dim_size(m) == 1 || o == 0) {  // the whole dim is local, or nothing crosses a boundary
    const int out = new_value(t.id, t.name, t.shape, t.dtype, in.mesh_dims);
    program_.raw_value_of_tensor[t.id] = out;
    add_compute(op, op.name, {x}, out, 0, [=](Store& s) {
      s[out].assign(elems * slices, 0.0f);
      for (int key = 0; key < slices; ++key) {
        const float* src = s[x].data() + key * elems;
        float* dst = s[out].data() + key * elems;
        if (o >= 0) {
          kernels::copy_block(src, sizes, dst, sizes, d, 0, o, len - o);
          if (wrap && o > 0) kernels::copy_block(src, sizes, dst, sizes, d, len - o, 0, o);
        } else {
          kernels::copy_block(src, sizes, dst, sizes, d, a, 0, len - a);
          if (wrap) kernels::copy_block(src, sizes, dst, sizes, d, 0, len - a, a);
        }
      }
    });
    return;
  }
  if (a > len) {
    throw InputError(fmt::format(
        "shift '{}': offset {} along '{}' exceeds its slice of {} elements (split over mesh dimension '{}'); "
        "shifts reach only the neighbouring processor",
        op.name, o, op.dim, len, mesh_.dim_name(m)));
  }
  // Send the rows that cross the slice boundary to the neighbour along m (a collective permute), keep the
  // rest.
  std::vector<Dimension> halo_dims = in.shape.dims();
  halo_dims[d] = Dimension(op.dim, a * mesh_.dim_size(m));
  const Shape halo_shape(halo_dims);
  const int send = new_value(-1, in.name + "/halo", halo_shape, in.dtype, in.mesh_dims);
  auto halo_sizes = value(send).local_sizes;
  const std::int64_t halo_elems = value(send).slice_elements;
  add_compute(op, op.name + "/halo", {x}, send, 0, [=](Store& s) {
    s[send].resize(halo_elems * slices);
    for (int key = 0; key < slices; ++key) {
      kernels::copy_block(s[x].data() + key * elems, sizes, s[send].data() + key * halo_elems, halo_sizes, d,
                          o > 0 ? len - a : 0, 0, a);
    }
  });
  const int received = new_value(-1, in.name + "/halo", halo_shape, in.dtype, in.mesh_dims);
  Step step;
  step.collective = CollectiveOp::permute;
  step.inputs = {send};
  step.output = received;
  step.mesh_dims = {m};
  step.tensor_dim = d;
  step.shift_offset = o;
  step.shift_wrap = wrap;
  step.record.kind = sim::CollectiveKind::permute;
  step.record.elements_per_core = halo_elems;
  add_collective(op, std::move(step), "shift");
  const int out = new_value(t.id, t.name, t.shape, t.dtype, in.mesh_dims);
  program_.raw_value_of_tensor[t.id] = out;
  add_compute(op, op.name, {x, received}, out, 0, [=](Store& s) {
    s[out].resize(elems * slices);
    for (int key = 0; key < slices; ++key) {
      const float* src = s[x].data() + key * elems;
      const float* halo = s[received].data() + key * halo_elems;
      float* dst = s[out].data() + key * elems;
      if (o > 0) {
        kernels::copy_block(halo, halo_sizes, dst, sizes, d, 0, 0, a);
        kernels::copy_block(src, sizes, dst, sizes, d, 0, a, len - a);
      } else {
        kernels::copy_block(src, sizes, dst, sizes, d, a, 0, len - a);
        kernels::copy_block(halo, halo_sizes, dst, sizes, d, 0, len - a, a);
      }
    }
  });
}

void Lowerer::lower_axis_op(const OpNode& op) {
  const TensorNode& t = graph_.tensor(op.output);
  std::vector<int> ins;
  for (std::size_t i = 0; i < op.inputs.size(); ++i) ins.push_back(input_value(op, static_cast<int>(i)));
  const std::vector<int> out_dims = rule_mesh_dims(t.id, op.unsplittable);
  const int out = new_value(t.id, t.name, t.shape, t.dtype, out_dims);
  program_.raw_value_of_tensor[t.id] = out;
  const Value& o = value(out);
  const int d = t.shape.index_of(op.dim);
  auto maps = key_maps(o, ins);
  std::vector<std::vector<std::int64_t>> in_sizes;
  std::vector<std::int64_t> in_elems;
  for (const int v : ins) {
    in_sizes.push_back(value(v).local_sizes);
    in_elems.push_back(value(v).slice_elements);
  }
  const auto out_sizes = o.local_sizes;
  const std::int64_t eo = o.slice_elements;
  const int slices = o.num_slices;
  const OpKind kind = op.kind;
  const std::int64_t begin = op.begin, amount = op.amount;
  const bool exclusive = op.flag, reverse = op.reverse;
  const double flops =
      (kind == OpKind::cumsum || kind == OpKind::argmax_one_hot) ? static_cast<double>(eo) : 0;
  add_compute(op, op.name, ins, out, flops, [=](Store& s) {
    s[out].assign(eo * slices, 0.0f);
    for (int key = 0; key < slices; ++key) {
      float* dst = s[out].data() + key * eo;
      auto src = [&](std::size_t i) { return s[ins[i]].data() + maps[i][key] * in_elems[i]; };
      switch (kind) {
        case OpKind::concat: {
          std::int64_t at = 0;
          for (std::size_t i = 0; i < ins.size(); ++i) {
            kernels::copy_block(src(i), in_sizes[i], dst, out_sizes, d, 0, at, in_sizes[i][d]);
            at += in_sizes[i][d];
          }
          break;
        }
        case OpKind::slice:
          kernels::copy_block(src(0), in_sizes[0], dst, out_sizes, d, begin, 0, amount);
          break;
        case OpKind::pad:
          kernels::copy_block(src(0), in_sizes[0], dst, out_sizes, d, 0, begin, in_sizes[0][d]);
          break;
        case OpKind::cumsum: {
          const AxisView v(out_sizes, d);
          const float* x = src(0);
          for (std::int64_t p = 0; p < v.pre; ++p) {
            for (std::int64_t q = 0; q < v.post; ++q) {
              float acc = 0;
              for (std::int64_t step = 0; step < v.rows; ++step) {
                const std::int64_t r = reverse ? v.rows - 1 - step : step;
                const std::int64_t at = (p * v.rows + r) * v.post + q;
                if (exclusive) {
                  dst[at] = acc;
                  acc += x[at];
                } else {
                  acc += x[at];
                  dst[at] = acc;
                }
              }
            }
          }
          break;
        }
        case OpKind::argmax_one_hot: {
          const AxisView v(out_sizes, d);
          const float* x = src(0);
          for (std::int64_t p = 0; p < v.pre; ++p) {
            for (std::int64_t q = 0; q < v.post; ++q) {
              std::int64_t best = 0;
              for (std::int64_t r = 1; r < v.rows; ++r) {
                if (x[(p * v.rows + r) * v.post + q] > x[(p * v.rows + best) * v.post + q]) best = r;
              }
              dst[(p * v.rows + best) * v.post + q] = 1.0f;
            }
          }
          break;
        }
        default:
          TPUSIM_CHECK(false);
      }
    }
  });
}

void Lowerer::lower_one_hot(const OpNode& op) {
  const TensorNode& t = graph_.tensor(op.output);
  const int ids = input_value(op, 0);
  const int out = new_value(t.id, t.name, t.shape, t.dtype, rule_mesh_dims(t.id));
  program_.raw_value_of_tensor[t.id] = out;
  const Value o = value(out);
  auto maps = key_maps(o, {ids});
  const int d = t.shape.rank() - 1;
  const std::int64_t depth = o.local_sizes[d];
  const std::int64_t n_ids = o.slice_elements / depth;
  const std::int64_t e_ids = value(ids).slice_elements;
  TPUSIM_CHECK(n_ids == e_ids);
  std::vector<std::int64_t> offsets;
  for (int key = 0; key < o.num_slices; ++key) offsets.push_back(o.offset(d, o.coords_of_key(key, mesh_)));
  const float on = static_cast<float>(op.scale), off = static_cast<float>(op.offset);
  const std::int64_t eo = o.slice_elements;
  const int slices = o.num_slices;
  add_compute(op, op.name, {ids}, out, 0, [=](Store& s) {
    s[out].assign(eo * slices, off);
    for (int key = 0; key < slices; ++key) {
      const float* id = s[ids].data() + maps[0][key] * e_ids;
      float* dst = s[out].data() + key * eo;
      for (std::int64_t i = 0; i < n_ids; ++i) {
        const auto hot = static_cast<std::int64_t>(std::llround(id[i])) - offsets[key];
        if (hot >= 0 && hot < depth) dst[i * depth + hot] = on;
      }
    }
  });
}

}  // namespace tpusim::mtf
