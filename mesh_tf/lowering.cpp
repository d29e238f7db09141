#include "mesh_tf/lowering.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mesh_tf/allreduce_combiner.hpp"
#include "mesh_tf/fusion.hpp"
#include "mesh_tf/op_table.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

const char* phase_suffix(Phase phase) {
  switch (phase) {
    case Phase::forward:
      return "";
    case Phase::backward:
      return " (backward)";
    case Phase::update:
      return " (update)";
  }
  return "";
}

}  // namespace

Program lower(const Graph& graph, const MeshShape& mesh, const LayoutRules& rules,
              const LoweringOptions& options) {
  rules.check_against(mesh);
  Program program;
  program.mesh = mesh;
  Lowerer lowerer(graph, mesh, rules, options, program);
  lowerer.run();
  return program;
}

Lowerer::Lowerer(const Graph& graph, const MeshShape& mesh, const LayoutRules& rules,
                 const LoweringOptions& options, Program& program)
    : graph_(graph), mesh_(mesh), rules_(rules), options_(options), program_(program) {}

void Lowerer::run() {
  const int n = static_cast<int>(graph_.tensors().size());
  program_.value_of_tensor.assign(n, -1);
  program_.raw_value_of_tensor.assign(n, -1);
  for (const auto& op : graph_.ops()) {
    op_row(op.kind).lower(*this, op);
    TPUSIM_CHECK(program_.raw_value_of_tensor[op.output] >= 0);
  }
  for (const int t : options_.outputs) {
    const OpNode& op = graph_.op(graph_.tensor(t).producer);
    program_.value_of_tensor[t] = force(program_.raw_value_of_tensor[t], op);
  }
  for (int t = 0; t < n; ++t) {
    if (program_.value_of_tensor[t] < 0) program_.value_of_tensor[t] = program_.raw_value_of_tensor[t];
  }
  std::vector<int> kept;
  for (const int t : options_.outputs) kept.push_back(program_.value_of_tensor[t]);
  for (const auto& a : program_.assignments) kept.push_back(a.new_value);
  program_.kept_values = kept;
  program_.attention_kernels = graph_.attention_kernels();
  check_attention_kernels();
  // What the layers hold for the backward pass is written when it is made, whatever fusion would do.
  std::vector<int> stored = kept;
  if (options_.rematerialization == RematerializationPolicy::layers && options_.layer_checkpoint.holds_anything()) {
    for (int i = 0; i < static_cast<int>(program_.steps.size()); ++i) {
      if (layer_hold(program_, graph_, i, options_.layer_checkpoint) != LayerHold::none)
        stored.push_back(program_.steps[i].output);
    }
  }
  fuse_steps(program_, options_.device, stored, options_.fusion);
  combine_allreduces(program_, options_.allreduce_combine_bytes);
  program_.rematerialization = rematerialize(program_, graph_, options_.device.hbm_bytes(),
                                             options_.rematerialization, options_.layer_checkpoint);
  finish_counters();
}

// A fused kernel runs on each core's slices alone: a collective among its steps would have to run inside it.
void Lowerer::check_attention_kernels() const {
  for (const Step& step : program_.steps) {
    if (!step.is_comm) continue;
    const int kernel = graph_.op(step.op).attention_kernel;
    if (kernel < 0) continue;
    throw InputError(fmt::format(
        "attention kernel '{}': {} needs the collective {} inside the kernel, which computes on each core's "
        "slices alone; keep the attention's lengths and d_kv whole (split batch and heads), or build the "
        "attention unfused",
        program_.attention_kernels[kernel].name(), graph_.op(step.op).name, step.label));
  }
}

TensorLayout Lowerer::rule_layout(int tensor, const std::vector<std::string>& unsplittable) const {
  const TensorNode& t = graph_.tensor(tensor);
  return TensorLayout::from_rules(t.name, t.shape, mesh_, rules_, unsplittable);
}

int Lowerer::new_value(int tensor, const std::string& name, TensorLayout layout, DType dtype,
                       std::vector<int> pending) {
  const int id = static_cast<int>(program_.values.size());
  program_.values.push_back(
      make_value(id, tensor, name, std::move(layout), dtype, std::move(pending), mesh_));
  forced_.push_back(-1);
  return id;
}

int Lowerer::input_value(const OpNode& op, int index, bool allow_pending) {
  const int tensor = op.inputs[index];
  if (!op.unsplittable.empty()) rule_layout(tensor, op.unsplittable);  // legality of the input's layout
  const int v = program_.raw_value_of_tensor[tensor];
  TPUSIM_CHECK(v >= 0);
  return allow_pending ? v : force(v, op);
}

kernels::LocalDims Lowerer::local_dims(const Value& v) const {
  kernels::LocalDims dims;
  dims.names = v.layout.shape().names();
  dims.sizes = v.layout.slice_sizes();
  return dims;
}

std::vector<std::vector<int>> Lowerer::key_maps(const Value& out, const std::vector<int>& inputs) const {
  std::vector<std::vector<int>> maps(inputs.size(), std::vector<int>(out.num_slices));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Value& in = value(inputs[i]);
    for (const int m : in.varying) {
      if (mesh_.dim_size(m) == 1) continue;  // one coordinate: nothing to match
      TPUSIM_CHECK(std::find(out.varying.begin(), out.varying.end(), m) != out.varying.end());
    }
    for (int key = 0; key < out.num_slices; ++key)
      maps[i][key] = in.key_of(out.coords_of_key(key, mesh_), mesh_);
  }
  return maps;
}

int Lowerer::add_compute(const OpNode& op, const std::string& label, std::vector<int> inputs, int output,
                         LocalWork work, std::function<void(Store&)> kernel) {
  Step step;
  step.op = op.id;
  step.label = label + phase_suffix(op.phase);
  step.inputs = std::move(inputs);
  step.output = output;
  step.flops = work.flops;
  step.transcendentals = work.transcendentals;
  step.extra_vector_ops = work.extra_vector_ops;
  const auto bytes_of = [&](int v) { return static_cast<double>(value(v).slice_bytes()); };
  double bytes = bytes_of(output);
  if (work.matmul && runs_on_matrix_unit(*work.matmul) && step.inputs.size() == 2) {
    // Its operands staged in the vector memory, where the device has one.
    const double once = bytes + bytes_of(step.inputs[0]) + bytes_of(step.inputs[1]);
    bytes = options_.device.matmul_hbm_bytes(bytes_of(step.inputs[0]), bytes_of(step.inputs[1]), bytes);
    step.reread_bytes = bytes - once;
  } else {
    for (const int in : step.inputs) bytes += bytes_of(in);
  }
  step.hbm_bytes = bytes;
  const OpTime time =
      work.matmul ? options_.device.matmul_time(*work.matmul, work.flops, bytes)
                  : options_.device.op_time(work.flops, bytes, work.transcendentals, work.extra_vector_ops);
  step.time_s = time.time_s;
  step.overhead_s = time.overhead_s;
  step.bound = time.bound;
  step.compute_s = time.compute_s;
  step.compute_bound = time.compute_bound;
  step.kernel = std::move(kernel);
  step.fusion = op_row(op.kind).fusion;
  step.attention_kernel = op.attention_kernel;
  step.kernel_backward = op.phase == Phase::backward;
  const int index = static_cast<int>(program_.steps.size());
  program_.values[output].producer_step = index;
  program_.steps.push_back(std::move(step));
  return index;
}

int Lowerer::add_collective(const OpNode& op, Step step, const std::string& reason) {
  step.is_comm = true;
  step.op = op.id;
  const Value& in = value(step.inputs[0]);
  CollectiveRecord& r = step.record;
  r.op = op.id;
  r.op_name = op.name;
  r.tensor = in.name;
  r.reason = reason;
  r.group_size = 1;
  for (const int m : step.mesh_dims) {
    r.mesh_dims.push_back(mesh_.dim_name(m));
    r.group_size *= mesh_.dim_size(m);
  }
  r.num_groups = mesh_.size() / r.group_size;
  r.issued = issue(options_.collective_backend, step.collective, r.reduce, in.dtype, step.mesh_dims, mesh_,
                   r.elements_per_core);
  r.element_bytes = r.issued.front().element_bytes;
  r.bytes_per_core = 0;
  for (const auto& issued : r.issued) r.bytes_per_core += issued.elements_per_core * issued.element_bytes;
  step.label = fmt::format(
      "{}[{}] {}{}", sim::to_string(r.kind), join(r.mesh_dims, ","), in.name,
      phase_suffix(in.tensor >= 0 ? graph_.op(graph_.tensor(in.tensor).producer).phase : op.phase));
  step.signature = collective_signature(step);
  const int index = static_cast<int>(program_.steps.size());
  program_.values[step.output].producer_step = index;
  program_.counters.collectives.push_back(r);
  program_.steps.push_back(std::move(step));
  return index;
}

int Lowerer::allreduce(int v, const std::vector<int>& dims, sim::ReduceOp reduce, const OpNode& op,
                       const std::string& reason) {
  const Value in = value(v);  // a copy: new_value appends to the values `in` would point into
  std::vector<int> pending;
  for (const int m : in.pending) {
    if (std::find(dims.begin(), dims.end(), m) == dims.end()) pending.push_back(m);
  }
  const int out = new_value(in.tensor, in.name, in.layout, in.dtype, pending);
  Step step;
  step.collective = CollectiveOp::allreduce;
  step.inputs = {v};
  step.output = out;
  step.mesh_dims = dims;
  std::sort(step.mesh_dims.begin(), step.mesh_dims.end());
  step.record.kind = sim::CollectiveKind::allreduce;
  step.record.reduce = reduce;
  step.record.elements_per_core = value(v).layout.slice_elements();
  add_collective(op, std::move(step), reason);
  return out;
}

int Lowerer::force(int v, const OpNode& op) {
  if (value(v).pending.empty()) return v;
  if (forced_[v] >= 0) return forced_[v];
  const std::vector<int> dims = value(v).pending;
  const OpNode& producer = value(v).tensor >= 0 ? graph_.op(graph_.tensor(value(v).tensor).producer) : op;
  const int out = allreduce(v, dims, sim::ReduceOp::sum, op, to_string(producer.kind));
  forced_[v] = out;
  return out;
}

int Lowerer::allsplit(int v, int tensor_dim, int mesh_dim, const OpNode& op) {
  const Value in = value(v);
  std::vector<int> dims = in.layout.mesh_dims();
  dims[tensor_dim] = mesh_dim;
  const int out =
      new_value(in.tensor, in.name, layout(in.name, in.layout.shape(), dims), in.dtype, in.pending);
  const Value& o = value(out);
  auto maps = key_maps(o, {v});
  const MeshShape mesh = mesh_;
  const std::int64_t len = o.layout.slice_sizes()[tensor_dim];
  std::vector<std::int64_t> begins;
  for (int key = 0; key < o.num_slices; ++key) begins.push_back(o.coords_of_key(key, mesh)[mesh_dim] * len);
  auto in_sizes = in.layout.slice_sizes(), out_sizes = o.layout.slice_sizes();
  const auto in_elems = in.layout.slice_elements(), out_elems = o.layout.slice_elements();
  const int out_slices = o.num_slices;
  const int index = add_compute(
      op, fmt::format("allsplit[{}] {}", mesh_.dim_name(mesh_dim), in.name), {v}, out, 0, [=](Store& s) {
        s[out].resize(out_elems * out_slices);
        for (int key = 0; key < out_slices; ++key) {
          kernels::copy_block(s[v].data() + maps[0][key] * in_elems, in_sizes,
                              s[out].data() + key * out_elems, out_sizes, tensor_dim, begins[key], 0, len);
        }
      });
  step(index).fusion = FusionRole::none;  // a relayout, whatever op needed it
  return out;
}

int Lowerer::allconcat(int v, int tensor_dim, const OpNode& op, bool native_allgather) {
  const Value in = value(v);  // a copy: new_value appends to the values `in` would point into
  const int m = in.layout.mesh_dim_of(tensor_dim);
  std::vector<int> dims = in.layout.mesh_dims();
  dims[tensor_dim] = -1;
  const int out =
      new_value(in.tensor, in.name, layout(in.name, in.layout.shape(), dims), in.dtype, in.pending);
  Step step;
  step.collective = native_allgather ? CollectiveOp::allgather : CollectiveOp::allconcat;
  step.inputs = {v};
  step.output = out;
  step.mesh_dims = {m};
  step.tensor_dim = tensor_dim;
  step.record.kind = sim::CollectiveKind::allgather;
  step.record.elements_per_core = value(v).layout.slice_elements() * mesh_.dim_size(m);
  add_collective(op, std::move(step), native_allgather ? "allgather" : "allconcat");
  return out;
}

// The sum over `mesh_dim` of a pending value, each core keeping the part of it its coordinate along
// `mesh_dim` selects along `tensor_dim`: a reduce-scatter moves (k-1)/k of the buffer where an allreduce
// moves twice that (the ring's reduce-scatter phase alone).
int Lowerer::reduce_scatter(int v, int tensor_dim, int mesh_dim, const OpNode& op) {
  const Value in = value(v);  // a copy: new_value appends to the values `in` would point into
  TPUSIM_CHECK(std::find(in.pending.begin(), in.pending.end(), mesh_dim) != in.pending.end());
  TPUSIM_CHECK(in.layout.mesh_dim_of(tensor_dim) < 0);
  std::vector<int> dims = in.layout.mesh_dims(), pending;
  dims[tensor_dim] = mesh_dim;
  for (const int m : in.pending) {
    if (m != mesh_dim) pending.push_back(m);
  }
  const int out = new_value(in.tensor, in.name, layout(in.name, in.layout.shape(), dims), in.dtype, pending);
  Step step;
  step.collective = CollectiveOp::reduce_scatter;
  step.inputs = {v};
  step.output = out;
  step.mesh_dims = {mesh_dim};
  step.tensor_dim = tensor_dim;
  step.record.kind = sim::CollectiveKind::reduce_scatter;
  step.record.reduce = sim::ReduceOp::sum;
  step.record.elements_per_core = value(v).layout.slice_elements();
  const OpNode& producer = in.tensor >= 0 ? graph_.op(graph_.tensor(in.tensor).producer) : op;
  add_collective(op, std::move(step), to_string(producer.kind));
  return out;
}

int Lowerer::alltoall(int v, int from_dim, int to_dim, const OpNode& op) {
  const Value in = value(v);  // a copy: new_value appends to the values `in` would point into
  const int m = in.layout.mesh_dim_of(from_dim);
  std::vector<int> dims = in.layout.mesh_dims();
  dims[from_dim] = -1;
  dims[to_dim] = m;
  const int out =
      new_value(in.tensor, in.name, layout(in.name, in.layout.shape(), dims), in.dtype, in.pending);
  Step step;
  step.collective = CollectiveOp::alltoall;
  step.inputs = {v};
  step.output = out;
  step.mesh_dims = {m};
  step.tensor_dim = from_dim;
  step.tensor_dim2 = to_dim;
  step.record.kind = sim::CollectiveKind::alltoall;
  step.record.elements_per_core = value(v).layout.slice_elements();
  add_collective(op, std::move(step), "alltoall");
  return out;
}

int Lowerer::permute(int send, int tensor_dim, std::int64_t offset, bool wrap, const OpNode& op,
                     const std::string& reason) {
  const Value in = value(send);
  const int received = new_value(-1, in.name, in.layout, in.dtype, in.pending);
  Step step;
  step.collective = CollectiveOp::permute;
  step.inputs = {send};
  step.output = received;
  step.mesh_dims = {in.layout.mesh_dim_of(tensor_dim)};
  step.tensor_dim = tensor_dim;
  step.shift_offset = offset;
  step.shift_wrap = wrap;
  step.record.kind = sim::CollectiveKind::permute;
  step.record.elements_per_core = in.layout.slice_elements();
  add_collective(op, std::move(step), reason);
  return received;
}

int Lowerer::relayout(int v, const std::vector<int>& target, const OpNode& op, bool reduce_scatter,
                      bool native_allgather) {
  auto dim_on = [](const std::vector<int>& dims, int m) {
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == m) return static_cast<int>(i);
    }
    return -1;
  };
  for (int m = 0; reduce_scatter && m < mesh_.rank(); ++m) {
    const Value& in = value(v);
    const int to = dim_on(target, m);
    const bool is_pending = std::find(in.pending.begin(), in.pending.end(), m) != in.pending.end();
    if (is_pending && mesh_.dim_size(m) > 1 && to >= 0 && in.layout.mesh_dim_of(to) < 0)
      v = this->reduce_scatter(v, to, m, op);
  }
  v = force(v, op);
  // Mesh dims of size 1 split nothing: move them by relabelling.
  std::vector<int> relabelled = value(v).layout.mesh_dims();
  for (int m = 0; m < mesh_.rank(); ++m) {
    if (mesh_.dim_size(m) != 1) continue;
    for (auto& d : relabelled) d = d == m ? -1 : d;
    const int to = dim_on(target, m);
    if (to >= 0 && relabelled[to] < 0) relabelled[to] = m;
  }
  if (relabelled != value(v).layout.mesh_dims()) {
    const Value in = value(v);
    const int out =
        new_value(in.tensor, in.name, layout(in.name, in.layout.shape(), relabelled), in.dtype, in.pending);
    step(add_compute(op, "relabel " + in.name, {v}, out, 0, [=](Store& s) { s[out] = s[v]; })).fusion =
        FusionRole::none;
    v = out;
  }
  // Alltoalls first (a mesh dim moving between tensor dims), then allconcats, then the free allsplits.
  for (int m = 0; m < mesh_.rank(); ++m) {
    const auto& cur = value(v).layout.mesh_dims();
    const int from = dim_on(cur, m), to = dim_on(target, m);
    if (from >= 0 && to >= 0 && from != to && cur[to] < 0) v = alltoall(v, from, to, op);
  }
  for (int m = 0; m < mesh_.rank(); ++m) {
    const auto& cur = value(v).layout.mesh_dims();
    const int from = dim_on(cur, m), to = dim_on(target, m);
    if (from >= 0 && from != to) v = allconcat(v, from, op, native_allgather);
  }
  for (int m = 0; m < mesh_.rank(); ++m) {
    const auto& cur = value(v).layout.mesh_dims();
    const int from = dim_on(cur, m), to = dim_on(target, m);
    if (from < 0 && to >= 0) v = allsplit(v, to, m, op);
  }
  TPUSIM_CHECK(value(v).layout.mesh_dims() == target);
  return v;
}

void Lowerer::lower_along_axis(const OpNode& op, const std::string& axis, bool counts_flops,
                               AxisKernel kernel) {
  const TensorNode& t = graph_.tensor(op.output);
  std::vector<int> ins;
  for (std::size_t i = 0; i < op.inputs.size(); ++i) ins.push_back(input_value(op, static_cast<int>(i)));
  const int out = new_value(t.id, t.name, rule_layout(t.id, op.unsplittable), t.dtype);
  set_result(op, out);
  const Value& o = value(out);
  const int d = t.shape.index_of(axis);
  auto maps = key_maps(o, ins);
  std::vector<std::vector<std::int64_t>> in_sizes;
  std::vector<std::int64_t> in_elems;
  for (const int v : ins) {
    in_sizes.push_back(value(v).layout.slice_sizes());
    in_elems.push_back(value(v).layout.slice_elements());
  }
  const auto out_sizes = o.layout.slice_sizes();
  const std::int64_t eo = o.layout.slice_elements();
  const int slices = o.num_slices;
  add_compute(op, op.name, ins, out, counts_flops ? static_cast<double>(eo) : 0, [=](Store& s) {
    s[out].assign(eo * slices, 0.0f);
    std::vector<const float*> srcs(ins.size());
    for (int key = 0; key < slices; ++key) {
      for (std::size_t i = 0; i < ins.size(); ++i) srcs[i] = s[ins[i]].data() + maps[i][key] * in_elems[i];
      kernel(srcs, in_sizes, s[out].data() + key * eo, out_sizes, d);
    }
  });
}

void Lowerer::finish_counters() {
  Counters& c = program_.counters;
  // Per op: sum of its compute steps.
  std::vector<OpCost> costs(graph_.ops().size());
  for (const auto& op : graph_.ops()) {
    costs[op.id].op = op.id;
    costs[op.id].name = op.name;
    costs[op.id].kind = op.kind;
    costs[op.id].phase = op.phase;
  }
  for (const auto& step : program_.steps) {
    if (step.is_comm) continue;
    costs[step.op].flops_per_core += step.flops;
    costs[step.op].hbm_bytes_per_core += step.hbm_bytes;
    costs[step.op].time_s += step.time_s;
    c.flops_per_core += step.flops;
  }
  c.ops = std::move(costs);
  c.tensors.clear();
  for (const auto& t : graph_.tensors()) {
    const OpNode& producer = graph_.op(t.producer);
    TensorCost cost;
    cost.tensor = t.id;
    cost.name = t.name;
    cost.dtype = t.dtype;
    cost.phase = producer.phase;
    const Value& v = value(program_.raw_value_of_tensor[t.id]);
    cost.layout = v.layout.to_string();
    cost.slice_bytes_per_core = v.slice_bytes();
    cost.is_variable = producer.kind == OpKind::variable;
    cost.is_optimizer_slot = cost.is_variable && producer.phase == Phase::update;
    c.tensors.push_back(cost);
  }
  for (const auto& op : graph_.ops()) {
    if (op.phase != Phase::backward) continue;
    for (const int input : op.inputs) {
      TensorCost& cost = c.tensors[input];
      if (cost.phase == Phase::forward && !cost.is_variable) cost.kept_for_backward = true;
    }
  }
}

}  // namespace tpusim::mtf
