// Randomised property tests of the arithmetic op families (einsum, binary, unary, reductions), forward and
// gradient, on one core and on random layouts of a 2x2 mesh, against the independent double-precision
// reference (reference.hpp). Dimension orders are random too, so a result or gradient that comes back in
// another order than its tensor's is caught.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "mesh_tf/autodiff.hpp"
#include "mesh_tf/execution.hpp"
#include "tests/mesh_tf/reference_harness.hpp"
#include "tests/mesh_tf/sim_for_tests.hpp"
#include "topologies/presets.hpp"

using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;
namespace ref = tpusim::mtf::reference;

TEST_CASE("random two-input einsums equal the reference, forward and backward") {
  std::mt19937_64 rng(101);
  for (int seed = 0; seed < 4 * kSeeds; ++seed) {
    const auto dims = random_dims(rng, static_cast<int>(pick(rng, 2, 5)));
    const auto a = random_subset(dims, rng), b = random_subset(dims, rng);
    auto all = ref::union_dims(a, b);
    // Output: any subset of the inputs' dims, sometimes with a broadcast dim no input has.
    auto out = random_subset(all, rng);
    if (rng() % 4 == 0 && dims.size() > all.size()) {
      for (const auto& d : dims) {
        if (std::none_of(all.begin(), all.end(), [&](const ref::Dim& e) { return e.name == d.name; })) {
          out.push_back(d);
          break;
        }
      }
    }
    ReferenceCase c;
    c.name = "einsum #" + std::to_string(seed);
    c.inputs = {random_ref(a, rng), random_ref(b, rng)};
    c.build = [out](const std::vector<Tensor>& x) { return einsum({x[0], x[1]}, shape_of(out)); };
    c.reference = [out](const std::vector<ref::Ref>& x) { return ref::einsum(x, out); };
    check_against_reference(c, rng);
  }
}

TEST_CASE("one-input einsums (sums, transposes, broadcasts) equal the reference") {
  std::mt19937_64 rng(102);
  for (int seed = 0; seed < 2 * kSeeds; ++seed) {
    const auto dims = random_dims(rng, 4);
    const auto a = random_subset(dims, rng, 2);
    auto out = random_subset(dims, rng);
    ReferenceCase c;
    c.name = "einsum1 #" + std::to_string(seed);
    c.inputs = {random_ref(a, rng)};
    c.build = [out](const std::vector<Tensor>& x) { return einsum({x[0]}, shape_of(out)); };
    c.reference = [out](const std::vector<ref::Ref>& x) { return ref::einsum(x, out); };
    check_against_reference(c, rng);
  }
}

TEST_CASE("broadcasting binary ops equal the reference") {
  struct Op {
    const char* name;
    Tensor (*build)(const Tensor&, const Tensor&, const std::string&);
    double (*f)(double, double);
    double b_low;  // division needs a denominator away from zero
  };
  const Op ops[] = {
      {"add", add, [](double a, double b) { return a + b; }, -1},
      {"sub", sub, [](double a, double b) { return a - b; }, -1},
      {"mul", mul, [](double a, double b) { return a * b; }, -1},
      {"div", div, [](double a, double b) { return a / b; }, 0.5},
      {"maximum", maximum, [](double a, double b) { return std::max(a, b); }, -1},
      {"minimum", minimum, [](double a, double b) { return std::min(a, b); }, -1},
      {"greater", greater, [](double a, double b) { return a > b ? 1.0 : 0.0; }, -1},
  };
  std::mt19937_64 rng(103);
  for (const auto& op : ops) {
    for (int seed = 0; seed < kSeeds; ++seed) {
      const auto dims = random_dims(rng, 4);
      const auto a = random_subset(dims, rng), b = random_subset(dims, rng);
      const auto out = ref::union_dims(a, b);
      ReferenceCase c;
      c.name = std::string(op.name) + " #" + std::to_string(seed);
      c.inputs = {random_ref(a, rng), random_ref(b, rng, op.b_low, 1.5)};
      c.build = [&op](const std::vector<Tensor>& x) { return op.build(x[0], x[1], ""); };
      c.reference = [&op, out](const std::vector<ref::Ref>& x) {
        return ref::elementwise(x, out, [&op](const std::vector<double>& v) { return op.f(v[0], v[1]); });
      };
      check_against_reference(c, rng);
    }
  }
}

TEST_CASE("equal compares exactly and passes no gradient") {
  std::mt19937_64 rng(104);
  for (int seed = 0; seed < kSeeds; ++seed) {
    const auto dims = random_dims(rng, 3);
    auto a = random_ref(dims, rng), b = random_ref(dims, rng);
    for (std::size_t i = 0; i < a.data.size(); i += 2) b.data[i] = a.data[i];  // half the elements tie
    ReferenceCase c;
    c.name = "equal #" + std::to_string(seed);
    c.inputs = {a, b};
    c.build = [](const std::vector<Tensor>& x) { return equal(x[0], x[1]); };
    c.reference = [dims](const std::vector<ref::Ref>& x) {
      return ref::elementwise(x, dims, [](const std::vector<double>& v) { return v[0] == v[1] ? 1.0 : 0.0; });
    };
    check_against_reference(c, rng);
  }
}

TEST_CASE("unary ops and scalar affine equal the reference") {
  struct Op {
    const char* name;
    std::function<Tensor(const Tensor&)> build;
    double (*f)(double);
    double low, high;
  };
  const Op ops[] = {
      {"neg", [](const Tensor& x) { return neg(x); }, [](double v) { return -v; }, -1, 1},
      {"relu", [](const Tensor& x) { return relu(x); }, [](double v) { return v > 0 ? v : 0; }, -1, 1},
      {"gelu", [](const Tensor& x) { return gelu(x); },
       [](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); },
       -2, 2},
      {"exp", [](const Tensor& x) { return exp(x); }, [](double v) { return std::exp(v); }, -1, 1},
      {"log", [](const Tensor& x) { return log(x); }, [](double v) { return std::log(v); }, 0.5, 2},
      {"tanh", [](const Tensor& x) { return tanh(x); }, [](double v) { return std::tanh(v); }, -2, 2},
      {"sqrt", [](const Tensor& x) { return sqrt(x); }, [](double v) { return std::sqrt(v); }, 0.5, 2},
      {"rsqrt", [](const Tensor& x) { return rsqrt(x); }, [](double v) { return 1 / std::sqrt(v); }, 0.5, 2},
      {"square", [](const Tensor& x) { return square(x); }, [](double v) { return v * v; }, -1, 1},
      {"reciprocal", [](const Tensor& x) { return unary(UnaryOp::reciprocal, x); },
       [](double v) { return 1 / v; }, 0.5, 2},
      {"sigmoid", [](const Tensor& x) { return sigmoid(x); }, [](double v) { return 1 / (1 + std::exp(-v)); },
       -2, 2},
      // To bf16: the numerics stay fp32, the dtype sets the bytes only.
      {"cast", [](const Tensor& x) { return cast(x, DType::bfloat16); }, [](double v) { return v; }, -1, 1},
      {"scale", [](const Tensor& x) { return scale(x, -2.5); }, [](double v) { return -2.5 * v; }, -1, 1},
      {"add_scalar", [](const Tensor& x) { return add_scalar(x, 0.75); }, [](double v) { return v + 0.75; },
       -1, 1},
  };
  std::mt19937_64 rng(105);
  for (const auto& op : ops) {
    for (int seed = 0; seed < kSeeds / 2; ++seed) {
      const auto dims = random_dims(rng, 3);
      ReferenceCase c;
      c.name = std::string(op.name) + " #" + std::to_string(seed);
      c.inputs = {random_ref(dims, rng, op.low, op.high)};
      c.build = [&op](const std::vector<Tensor>& x) { return op.build(x[0]); };
      c.reference = [&op](const std::vector<ref::Ref>& x) { return ref::map(x[0], op.f); };
      check_against_reference(c, rng);
    }
  }
  // A new unary op gets a case here: step and gelu_grad are the derivatives of relu and gelu, checked through
  // their gradients.
  for (int i = 0; i < kUnaryOpCount; ++i) {
    const std::string name = to_string(static_cast<UnaryOp>(i));
    if (name == "step" || name == "gelu_grad") continue;
    INFO("unary op " << name << " has no reference case");
    CHECK(std::any_of(std::begin(ops), std::end(ops), [&](const Op& op) { return name == op.name; }));
  }
}

TEST_CASE("stop_gradient passes the value and no gradient") {
  // loss = sum((x + stop_gradient(x^2)) * weights): d loss / dx = weights, not weights * (1 + 2x).
  Graph g;
  const Dimension n("n", 6);
  const Tensor x = g.variable("x", {n}, Initializer::zeros());
  const Tensor w = g.input("w", {n});
  const Tensor y = add(x, stop_gradient(square(x)));
  const auto grads = gradients(reduce_sum(mul(y, w), Shape{}), {x});
  Executor executor(g, MeshShape::parse(""), LayoutRules(), nullptr);
  const std::vector<float> xs = {0.5f, -1, 2, 0.25f, -0.75f, 1.5f}, ws = {1, 2, 3, -1, -2, 0.5f};
  executor.set_variable_value(x, xs);
  executor.feed(w, ws);
  const auto fetched = executor.run({y, grads[0]}).fetched;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    CHECK(fetched[0][i] == Approx(xs[i] + xs[i] * xs[i]));
    CHECK(fetched[1][i] == Approx(ws[i]));
  }
}

TEST_CASE("reductions (sum, mean, max, logsumexp) equal the reference") {
  std::mt19937_64 rng(106);
  for (int seed = 0; seed < kSeeds; ++seed) {
    const auto dims = random_dims(rng, 4);
    const auto x = shuffled(dims, rng);
    const auto out = random_subset(x, rng, 0);
    const std::int64_t count = ref::Ref(x).elements() / ref::Ref(out).elements();
    ReferenceCase max_case;
    max_case.name = "reduce_max #" + std::to_string(seed);
    max_case.inputs = {random_ref(x, rng)};
    max_case.build = [out](const std::vector<Tensor>& t) { return reduce_max(t[0], shape_of(out)); };
    max_case.reference = [out](const std::vector<ref::Ref>& t) { return ref::reduce_max(t[0], out); };
    check_against_reference(max_case, rng);

    ReferenceCase mean_case = max_case;
    mean_case.name = "reduce_mean #" + std::to_string(seed);
    mean_case.build = [out](const std::vector<Tensor>& t) { return reduce_mean(t[0], shape_of(out)); };
    mean_case.reference = [out, count](const std::vector<ref::Ref>& t) {
      return ref::map(ref::einsum(t, out), [count](double v) { return v / static_cast<double>(count); });
    };
    check_against_reference(mean_case, rng);

    const std::string reduced = x[pick(rng, 0, static_cast<std::int64_t>(x.size()) - 1)].name;
    ReferenceCase lse = max_case;
    lse.name = "reduce_logsumexp #" + std::to_string(seed);
    lse.build = [reduced](const std::vector<Tensor>& t) { return reduce_logsumexp(t[0], reduced); };
    lse.reference = [reduced, x](const std::vector<ref::Ref>& t) {
      const auto e = ref::map(t[0], [](double v) { return std::exp(v); });
      return ref::map(ref::einsum({e}, without(x, reduced)), [](double v) { return std::log(v); });
    };
    check_against_reference(lse, rng);
  }
}
