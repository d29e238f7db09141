// Elementwise unary ops and x * scale + offset: one table row per unary op holds its name, its kernel loop
// and its derivative as a graph expression. Local on every layout; a pending partial sum is allreduced first.
#include <fmt/format.h>

#include <array>
#include <cmath>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/ops/op_families.hpp"

namespace tpusim::mtf {
namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;

float neg_f(float x) { return -x; }
float relu_f(float x) { return x > 0 ? x : 0.0f; }
float step_f(float x) { return x > 0 ? 1.0f : 0.0f; }
float gelu_f(float v) { return 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + 0.044715f * v * v * v))); }
float gelu_grad_f(float v) {
  const float t = std::tanh(kSqrt2OverPi * (v + 0.044715f * v * v * v));
  return 0.5f * (1 + t) + 0.5f * v * (1 - t * t) * kSqrt2OverPi * (1 + 3 * 0.044715f * v * v);
}
float exp_f(float x) { return std::exp(x); }
float log_f(float x) { return std::log(x); }
float tanh_f(float x) { return std::tanh(x); }
float sqrt_f(float x) { return std::sqrt(x); }
float rsqrt_f(float x) { return 1.0f / std::sqrt(x); }
float square_f(float x) { return x * x; }
float reciprocal_f(float x) { return 1.0f / x; }
float sigmoid_f(float x) { return 1.0f / (1.0f + std::exp(-x)); }
float identity_f(float x) { return x; }  // cast: numerics stay fp32, the dtype sets bytes only

// d loss / d x given dy, the input x and the output y of the op.
Tensor neg_gradient(const Tensor& dy, const Tensor&, const Tensor&) { return neg(dy); }
// From the output, as TensorFlow's ReluGrad takes it (tensorflow/python/ops/nn_grad.py passes op.outputs[0]):
// y > 0 exactly where x > 0, and the backward pass then needs only the value the next layer reads anyway.
Tensor relu_gradient(const Tensor& dy, const Tensor&, const Tensor& y) {
  return mul(dy, unary(UnaryOp::step, y));
}
Tensor gelu_gradient(const Tensor& dy, const Tensor& x, const Tensor&) {
  return mul(dy, unary(UnaryOp::gelu_grad, x));
}
Tensor exp_gradient(const Tensor& dy, const Tensor&, const Tensor& y) { return mul(dy, y); }
Tensor log_gradient(const Tensor& dy, const Tensor& x, const Tensor&) { return div(dy, x); }
Tensor tanh_gradient(const Tensor& dy, const Tensor&, const Tensor& y) {
  return mul(dy, add_scalar(neg(square(y)), 1));
}
Tensor sqrt_gradient(const Tensor& dy, const Tensor&, const Tensor& y) { return div(scale(dy, 0.5), y); }
Tensor rsqrt_gradient(const Tensor& dy, const Tensor&, const Tensor& y) {
  return mul(scale(dy, -0.5), mul(y, square(y)));
}
Tensor square_gradient(const Tensor& dy, const Tensor& x, const Tensor&) { return mul(dy, scale(x, 2)); }
Tensor reciprocal_gradient(const Tensor& dy, const Tensor&, const Tensor& y) {
  return neg(mul(dy, square(y)));
}
Tensor sigmoid_gradient(const Tensor& dy, const Tensor&, const Tensor& y) {
  return mul(dy, mul(y, add_scalar(neg(y), 1)));
}
Tensor cast_gradient(const Tensor& dy, const Tensor& x, const Tensor&) { return cast(dy, x.dtype()); }

struct UnaryRow {
  UnaryOp op;
  const char* name;
  kernels::UnaryLoop loop;
  // nullptr: no gradient passes (the derivative ops step and gelu_grad: second derivatives are not needed)
  Tensor (*gradient)(const Tensor& dy, const Tensor& x, const Tensor& y);
  // Whether it is a transcendental function, as XLA's HloCostAnalysis counts them (exp, log, tanh, sqrt,
  // rsqrt, logistic; gelu and its derivative through their tanh): its cost on the vector unit.
  bool transcendental;
};

constexpr std::array<UnaryRow, kUnaryOpCount> kUnaryOps = {{
    {UnaryOp::neg, "neg", kernels::unary_loop<neg_f>, neg_gradient, false},
    {UnaryOp::relu, "relu", kernels::unary_loop<relu_f>, relu_gradient, false},
    {UnaryOp::step, "step", kernels::unary_loop<step_f>, nullptr, false},
    {UnaryOp::gelu, "gelu", kernels::unary_loop<gelu_f>, gelu_gradient, true},
    {UnaryOp::gelu_grad, "gelu_grad", kernels::unary_loop<gelu_grad_f>, nullptr, true},
    {UnaryOp::exp, "exp", kernels::unary_loop<exp_f>, exp_gradient, true},
    {UnaryOp::log, "log", kernels::unary_loop<log_f>, log_gradient, true},
    {UnaryOp::tanh, "tanh", kernels::unary_loop<tanh_f>, tanh_gradient, true},
    {UnaryOp::sqrt, "sqrt", kernels::unary_loop<sqrt_f>, sqrt_gradient, true},
    {UnaryOp::rsqrt, "rsqrt", kernels::unary_loop<rsqrt_f>, rsqrt_gradient, true},
    {UnaryOp::square, "square", kernels::unary_loop<square_f>, square_gradient, false},
    {UnaryOp::reciprocal, "reciprocal", kernels::unary_loop<reciprocal_f>, reciprocal_gradient, false},
    {UnaryOp::sigmoid, "sigmoid", kernels::unary_loop<sigmoid_f>, sigmoid_gradient, true},
    {UnaryOp::cast, "cast", kernels::unary_loop<identity_f>, cast_gradient, false},
}};

// A row left out is value-initialised, naming op 0 at a later place, so the order check also catches it.
constexpr bool unary_rows_in_enum_order() {
  for (int i = 0; i < kUnaryOpCount; ++i) {
    if (static_cast<int>(kUnaryOps[i].op) != i) return false;
  }
  return true;
}
static_assert(unary_rows_in_enum_order(), "one row per UnaryOp, in enum order");

const UnaryRow& row(UnaryOp op) { return kUnaryOps[static_cast<int>(op)]; }

Tensor affine(const Tensor& x, double factor, double offset, const std::string& name) {
  OpNode op;
  op.kind = OpKind::scalar_affine;
  op.attributes = AffineAttributes{factor, offset};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), x.dtype(), name);
}

Tensor unary_op(UnaryOp kind, const Tensor& x, DType dtype, const std::string& name) {
  OpNode op;
  op.kind = OpKind::unary;
  op.attributes = UnaryAttributes{kind};
  op.inputs = {x.id()};
  return x.graph().add_op(std::move(op), x.shape(), dtype, name);
}

}  // namespace

Tensor scale(const Tensor& x, double factor, const std::string& name) { return affine(x, factor, 0, name); }
Tensor add_scalar(const Tensor& x, double offset, const std::string& name) {
  return affine(x, 1, offset, name);
}

Tensor unary(UnaryOp kind, const Tensor& x, const std::string& name) {
  return unary_op(kind, x, x.dtype(), name);
}
Tensor neg(const Tensor& x, const std::string& name) { return unary(UnaryOp::neg, x, name); }
Tensor relu(const Tensor& x, const std::string& name) { return unary(UnaryOp::relu, x, name); }
Tensor gelu(const Tensor& x, const std::string& name) { return unary(UnaryOp::gelu, x, name); }
Tensor exp(const Tensor& x, const std::string& name) { return unary(UnaryOp::exp, x, name); }
Tensor log(const Tensor& x, const std::string& name) { return unary(UnaryOp::log, x, name); }
Tensor tanh(const Tensor& x, const std::string& name) { return unary(UnaryOp::tanh, x, name); }
Tensor sqrt(const Tensor& x, const std::string& name) { return unary(UnaryOp::sqrt, x, name); }
Tensor rsqrt(const Tensor& x, const std::string& name) { return unary(UnaryOp::rsqrt, x, name); }
Tensor square(const Tensor& x, const std::string& name) { return unary(UnaryOp::square, x, name); }
Tensor sigmoid(const Tensor& x, const std::string& name) { return unary(UnaryOp::sigmoid, x, name); }

Tensor cast(const Tensor& x, DType dtype, const std::string& name) {
  if (x.dtype() == dtype) return x;
  return unary_op(UnaryOp::cast, x, dtype, name);
}

namespace ops {

const char* unary_name(UnaryOp op) { return row(op).name; }

bool unary_passes_gradient(const OpNode& op) { return row(op.get<UnaryAttributes>().op).gradient != nullptr; }

void unary_gradient(GradientRequest& r) {
  r.emit(0, [&] { return row(r.op.get<UnaryAttributes>().op).gradient(r.dy, r.input(0), r.out); });
}

void affine_gradient(GradientRequest& r) {
  r.emit(0, [&] { return scale(r.dy, r.op.get<AffineAttributes>().scale); });
}

void lower_unary(Lowerer& lowerer, const OpNode& op) {
  const TensorNode& t = lowerer.graph().tensor(op.output);
  const int x = lowerer.input_value(op, 0);
  const Value in = lowerer.value(x);  // a copy: new_value appends values
  const int out =
      lowerer.new_value(t.id, t.name, lowerer.layout(t.name, t.shape, in.layout.mesh_dims()), t.dtype);
  lowerer.set_result(op, out);
  const std::int64_t n = in.layout.slice_elements() * in.num_slices;
  const double elements = static_cast<double>(in.layout.slice_elements());
  if (op.kind == OpKind::scalar_affine) {
    const AffineAttributes affine = op.get<AffineAttributes>();
    lowerer.add_compute(op, op.name, {x}, out, elements, [=](Store& s) {
      s[out].resize(n);
      kernels::affine(s[x].data(), s[out].data(), n, affine.scale, affine.offset);
    });
    return;
  }
  const UnaryRow& unary = row(op.get<UnaryAttributes>().op);
  const kernels::UnaryLoop loop = unary.loop;
  lowerer.add_compute(op, op.name, {x}, out, {elements, unary.transcendental ? elements : 0}, [=](Store& s) {
    s[out].resize(n);
    loop(s[x].data(), s[out].data(), n);
  });
}

}  // namespace ops
}  // namespace tpusim::mtf
