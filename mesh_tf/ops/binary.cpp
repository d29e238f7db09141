// Elementwise binary ops with broadcasting: one table row per op holds its name, its kernel loop and its
// gradient rule. Adding and subtracting partial sums keeps them pending, so contributions to one gradient
// are added before one allreduce.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

// Sums dy down to `shape` (the broadcast dims of a binary op's input).
Tensor reduce_to(const Tensor& dy, const Shape& shape) {
  return dy.shape() == shape ? dy : einsum({dy}, shape);
}

void add_gradient(GradientRequest& r) {
  r.emit(0, [&] { return reduce_to(r.dy, r.input(0).shape()); });
  r.emit(1, [&] { return reduce_to(r.dy, r.input(1).shape()); });
}
void sub_gradient(GradientRequest& r) {
  r.emit(0, [&] { return reduce_to(r.dy, r.input(0).shape()); });
  r.emit(1, [&] { return neg(reduce_to(r.dy, r.input(1).shape())); });
}
void mul_gradient(GradientRequest& r) {
  r.emit(0, [&] { return einsum({r.dy, r.input(1)}, r.input(0).shape()); });
  r.emit(1, [&] { return einsum({r.dy, r.input(0)}, r.input(1).shape()); });
}
void div_gradient(GradientRequest& r) {
  const Tensor a = r.input(0), b = r.input(1);
  r.emit(0, [&] { return reduce_to(div(r.dy, b), a.shape()); });
  r.emit(1, [&] { return neg(reduce_to(div(mul(r.dy, r.out), b), b.shape())); });
}
// maximum and minimum: the gradient goes to the input the output came from (to a on a tie).
void select_gradient(GradientRequest& r) {
  const Tensor a = r.input(0), b = r.input(1);
  const Tensor from_a = equal(r.out, a);  // built only when some input wants a gradient (autodiff)
  r.emit(0, [&] { return reduce_to(mul(r.dy, from_a), a.shape()); });
  r.emit(1, [&] { return reduce_to(mul(r.dy, add_scalar(neg(from_a), 1)), b.shape()); });
}

float add_f(float x, float y) { return x + y; }
float sub_f(float x, float y) { return x - y; }
float mul_f(float x, float y) { return x * y; }
float div_f(float x, float y) { return x / y; }
float maximum_f(float x, float y) { return std::max(x, y); }
float minimum_f(float x, float y) { return std::min(x, y); }
float equal_f(float x, float y) { return x == y ? 1.0f : 0.0f; }
float greater_f(float x, float y) { return x > y ? 1.0f : 0.0f; }

struct BinaryRow {
  BinaryOp op;
  const char* name;
  kernels::BinaryLoop loop;
  void (*gradient)(GradientRequest&);  // nullptr: no gradient passes (comparisons)
};

constexpr std::array<BinaryRow, kBinaryOpCount> kBinaryOps = {{
    {BinaryOp::add, "add", kernels::binary_loop<add_f>, add_gradient},
    {BinaryOp::sub, "sub", kernels::binary_loop<sub_f>, sub_gradient},
    {BinaryOp::mul, "mul", kernels::binary_loop<mul_f>, mul_gradient},
    {BinaryOp::div, "div", kernels::binary_loop<div_f>, div_gradient},
    {BinaryOp::maximum, "maximum", kernels::binary_loop<maximum_f>, select_gradient},
    {BinaryOp::minimum, "minimum", kernels::binary_loop<minimum_f>, select_gradient},
    {BinaryOp::equal, "equal", kernels::binary_loop<equal_f>, nullptr},
    {BinaryOp::greater, "greater", kernels::binary_loop<greater_f>, nullptr},
}};

// A row left out is value-initialised, naming op 0 at a later place, so the order check also catches it.
constexpr bool binary_rows_in_enum_order() {
  for (int i = 0; i < kBinaryOpCount; ++i) {
    if (static_cast<int>(kBinaryOps[i].op) != i) return false;
  }
  return true;
}
static_assert(binary_rows_in_enum_order(), "one row per BinaryOp, in enum order");

const BinaryRow& row(BinaryOp op) { return kBinaryOps[static_cast<int>(op)]; }

Tensor binary_union(BinaryOp kind, const Tensor& a, const Tensor& b, const std::string& name) {
  same_graph({a, b}, to_string(kind));
  Shape out;
  try {
    out = a.shape().union_with(b.shape());
  } catch (const InputError& error) {
    throw InputError(
        fmt::format("{} '{}' of '{}' and '{}': {}", to_string(kind), name, a.name(), b.name(), error.what()));
  }
  return binary(kind, a, b, out, name);
}

}  // namespace

Tensor binary(BinaryOp kind, const Tensor& a, const Tensor& b, const Shape& output, const std::string& name) {
  same_graph({a, b}, to_string(kind));
  if (!a.shape().is_subset_of(output) || !b.shape().is_subset_of(output)) {
    throw InputError(fmt::format("{} '{}': shapes {} of '{}' and {} of '{}' do not broadcast to {}",
                                 to_string(kind), name, a.shape().to_string(), a.name(),
                                 b.shape().to_string(), b.name(), output.to_string()));
  }
  OpNode op;
  op.kind = OpKind::binary;
  op.attributes = BinaryAttributes{kind};
  op.inputs = {a.id(), b.id()};
  return a.graph().add_op(std::move(op), output, a.dtype(), name);
}

Tensor add(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::add, a, b, name);
}
Tensor sub(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::sub, a, b, name);
}
Tensor mul(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::mul, a, b, name);
}
Tensor div(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::div, a, b, name);
}
Tensor maximum(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::maximum, a, b, name);
}
Tensor minimum(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::minimum, a, b, name);
}
Tensor equal(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::equal, a, b, name);
}
Tensor greater(const Tensor& a, const Tensor& b, const std::string& name) {
  return binary_union(BinaryOp::greater, a, b, name);
}

namespace ops {

const char* binary_name(BinaryOp op) { return row(op).name; }

bool binary_passes_gradient(const OpNode& op) {
  return row(op.get<BinaryAttributes>().op).gradient != nullptr;
}

void binary_gradient(GradientRequest& request) {
  row(request.op.get<BinaryAttributes>().op).gradient(request);
}

void lower_binary(Lowerer& lowerer, const OpNode& op) {
  const TensorNode& t = lowerer.graph().tensor(op.output);
  const std::vector<int> out_dims = lowerer.rule_layout(t.id).mesh_dims();
  int a = lowerer.input_value(op, 0, true), b = lowerer.input_value(op, 1, true);
  std::vector<int> pending;
  const BinaryOp kind = op.get<BinaryAttributes>().op;
  const bool linear = kind == BinaryOp::add || kind == BinaryOp::sub;
  const Value &va = lowerer.value(a), &vb = lowerer.value(b);
  if (linear && !va.pending.empty() && va.pending == vb.pending && va.layout.shape() == t.shape &&
      vb.layout.shape() == t.shape) {
    pending = va.pending;  // lazy allreduce: add partial sums, reduce once later
  } else {
    a = lowerer.force(a, op);
    b = lowerer.force(b, op);
  }
  const int out =
      lowerer.new_value(t.id, t.name, lowerer.layout(t.name, t.shape, out_dims), t.dtype, pending);
  lowerer.set_result(op, out);
  const Value& o = lowerer.value(out);
  const auto od = lowerer.local_dims(o);
  const auto sa = kernels::broadcast_strides(lowerer.local_dims(lowerer.value(a)), od);
  const auto sb = kernels::broadcast_strides(lowerer.local_dims(lowerer.value(b)), od);
  auto maps = lowerer.key_maps(o, {a, b});
  const std::int64_t ea = lowerer.value(a).layout.slice_elements(),
                     eb = lowerer.value(b).layout.slice_elements(), eo = o.layout.slice_elements();
  const int slices = o.num_slices;
  const kernels::BinaryLoop loop = row(kind).loop;
  const auto sizes = od.sizes;
  lowerer.add_compute(op, op.name, {a, b}, out, static_cast<double>(eo), [=](Store& s) {
    s[out].resize(eo * slices);
    for (int key = 0; key < slices; ++key) {
      kernels::binary(loop, s[a].data() + maps[0][key] * ea, sa, s[b].data() + maps[1][key] * eb, sb,
                      s[out].data() + key * eo, sizes);
    }
  });
}

}  // namespace ops
}  // namespace tpusim::mtf
