// Randomised property tests: every op family of the engine, forward and gradient, on one core and on random
// layouts of a 2x2 mesh, against the independent double-precision reference (reference.hpp). Dimension orders
// are random too, so a result or gradient that comes back in another order than its tensor's is caught.
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

namespace {

constexpr int kSeeds = 12;  // random cases per op family

// Up to `count` distinct dims named i, j, k, l, m with sizes 2..4.
std::vector<ref::Dim> random_dims(std::mt19937_64& rng, int count) {
  std::vector<ref::Dim> pool;
  std::uniform_int_distribution<int> size(2, 4);
  for (const char* name : {"i", "j", "k", "l", "m"}) pool.push_back({name, size(rng)});
  pool = shuffled(pool, rng);
  pool.resize(count);
  return pool;
}

// A random non-empty subset of `dims` (at least `min` of them), in random order.
std::vector<ref::Dim> random_subset(const std::vector<ref::Dim>& dims, std::mt19937_64& rng,
                                    std::size_t min = 1) {
  std::vector<ref::Dim> out;
  do {
    out.clear();
    for (const auto& d : dims) {
      if (rng() % 2) out.push_back(d);
    }
  } while (out.size() < min);
  return shuffled(out, rng);
}

std::vector<ref::Dim> without(const std::vector<ref::Dim>& dims, const std::string& name) {
  std::vector<ref::Dim> out;
  for (const auto& d : dims) {
    if (d.name != name) out.push_back(d);
  }
  return out;
}

std::vector<std::string> names(const std::vector<ref::Dim>& dims) {
  std::vector<std::string> out;
  for (const auto& d : dims) out.push_back(d.name);
  return out;
}

std::int64_t pick(std::mt19937_64& rng, std::int64_t low, std::int64_t high) {
  return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
}

}  // namespace

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
      {"cast to bf16 (numerics stay fp32)", [](const Tensor& x) { return cast(x, DType::bfloat16); },
       [](double v) { return v; }, -1, 1},
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

TEST_CASE("reshape and rename keep memory order, whatever the layout") {
  std::mt19937_64 rng(107);
  for (int seed = 0; seed < kSeeds; ++seed) {
    const auto x = random_dims(rng, 3);
    // Rename one dim, or regroup all elements as [p, q] with p the first dim's size.
    const std::int64_t total = ref::Ref(x).elements();
    const std::vector<ref::Dim> renamed = [&] {
      auto dims = x;
      dims[pick(rng, 0, 2)].name += "2";
      return dims;
    }();
    const std::vector<ref::Dim> regrouped = {{"p", x[0].size}, {"q", total / x[0].size}};
    for (const auto& out : {renamed, regrouped}) {
      ReferenceCase c;
      c.name = "reshape #" + std::to_string(seed) + " to " + names(out)[0] + "...";
      c.inputs = {random_ref(x, rng)};
      c.build = [out](const std::vector<Tensor>& t) { return reshape(t[0], shape_of(out)); };
      c.reference = [out](const std::vector<ref::Ref>& t) { return ref::reshape(t[0], out); };
      check_against_reference(c, rng);
    }
  }
}

TEST_CASE("shift with and without wrap equals the reference") {
  std::mt19937_64 rng(108);
  for (int seed = 0; seed < 2 * kSeeds; ++seed) {
    const auto x = random_dims(rng, 3);
    const auto& along = x[pick(rng, 0, 2)];
    // At most half the size: on a 2-way split the halo then comes from the neighbour only.
    const std::int64_t offset = pick(rng, -along.size / 2, along.size / 2);
    const bool wrap = rng() % 2;
    ReferenceCase c;
    c.name = "shift #" + std::to_string(seed) + " along " + along.name + " by " + std::to_string(offset) +
             (wrap ? " wrapping" : "");
    c.inputs = {random_ref(x, rng)};
    const std::string dim = along.name;
    c.build = [dim, offset, wrap](const std::vector<Tensor>& t) { return shift(t[0], dim, offset, wrap); };
    c.reference = [dim, offset, wrap](const std::vector<ref::Ref>& t) {
      return ref::shift(t[0], dim, offset, wrap);
    };
    check_against_reference(c, rng);
  }
}

TEST_CASE("concat matches its inputs by dimension name, whatever their order") {
  std::mt19937_64 rng(109);
  for (int seed = 0; seed < 2 * kSeeds; ++seed) {
    const auto dims = random_dims(rng, 3);
    const std::string axis = dims[0].name;
    ReferenceCase c;
    c.name = "concat #" + std::to_string(seed) + " along " + axis;
    const int count = static_cast<int>(pick(rng, 1, 3));
    for (int i = 0; i < count; ++i) {
      auto part = dims;
      part[0].size = pick(rng, 1, 3);
      c.inputs.push_back(random_ref(shuffled(part, rng), rng));  // the axis at any position
    }
    c.unsplittable = {axis};
    c.build = [axis](const std::vector<Tensor>& t) { return concat(t, axis); };
    c.reference = [axis](const std::vector<ref::Ref>& t) { return ref::concat(t, axis); };
    check_against_reference(c, rng);
  }
}

TEST_CASE("slice, pad and split equal the reference") {
  std::mt19937_64 rng(110);
  for (int seed = 0; seed < kSeeds; ++seed) {
    auto x = random_dims(rng, 3);
    x[0].size += 3;
    const std::string axis = x[0].name;
    const std::int64_t n = x[0].size, begin = pick(rng, 0, n - 1), size = pick(rng, 1, n - begin);
    const std::int64_t before = pick(rng, 0, 2), after = pick(rng, 0, 2);
    ReferenceCase sliced;
    sliced.name = "slice #" + std::to_string(seed);
    sliced.inputs = {random_ref(shuffled(x, rng), rng)};
    sliced.unsplittable = {axis};
    sliced.build = [=](const std::vector<Tensor>& t) { return slice(t[0], axis, begin, size); };
    sliced.reference = [=](const std::vector<ref::Ref>& t) { return ref::slice(t[0], axis, begin, size); };
    check_against_reference(sliced, rng);

    ReferenceCase padded = sliced;
    padded.name = "pad #" + std::to_string(seed);
    padded.build = [=](const std::vector<Tensor>& t) { return pad(t[0], axis, before, after); };
    padded.reference = [=](const std::vector<ref::Ref>& t) { return ref::pad(t[0], axis, before, after); };
    check_against_reference(padded, rng);

    ReferenceCase split_case = sliced;
    split_case.name = "split #" + std::to_string(seed);
    const std::int64_t first = pick(rng, 1, n - 1);
    split_case.build = [=](const std::vector<Tensor>& t) {
      const auto parts = split(t[0], axis, {first, n - first});
      return sub(parts[1], scale(reduce_sum_over(parts[0], {axis}), 2));  // both parts reach the output
    };
    split_case.reference = [=](const std::vector<ref::Ref>& t) {
      const auto head = ref::einsum({ref::slice(t[0], axis, 0, first)}, without(t[0].dims, axis));
      const auto tail = ref::slice(t[0], axis, first, n - first);
      return ref::elementwise({tail, head}, tail.dims,
                              [](const std::vector<double>& v) { return v[0] - 2 * v[1]; });
    };
    check_against_reference(split_case, rng);
  }
}

TEST_CASE("cumsum in both directions, inclusive and exclusive, has the reference value and gradient") {
  std::mt19937_64 rng(111);
  for (int seed = 0; seed < kSeeds; ++seed) {
    const auto x = random_dims(rng, 3);
    const std::string axis = x[pick(rng, 0, 2)].name;
    for (const bool exclusive : {false, true}) {
      for (const bool reverse : {false, true}) {
        ReferenceCase c;
        c.name = std::string(reverse ? "reverse_cumsum" : "cumsum") + (exclusive ? " exclusive" : "") + " #" +
                 std::to_string(seed);
        c.inputs = {random_ref(x, rng)};
        c.unsplittable = {axis};
        c.build = [=](const std::vector<Tensor>& t) {
          return reverse ? reverse_cumsum(t[0], axis, exclusive) : cumsum(t[0], axis, exclusive);
        };
        c.reference = [=](const std::vector<ref::Ref>& t) {
          return ref::cumsum(t[0], axis, exclusive, reverse);
        };
        check_against_reference(c, rng);
      }
    }
  }
}

TEST_CASE("one_hot, argmax_one_hot and gather equal the reference") {
  std::mt19937_64 rng(112);
  for (int seed = 0; seed < kSeeds; ++seed) {
    const auto dims = random_dims(rng, 3);
    const ref::Dim vocab{"v", 4 + 2 * pick(rng, 0, 2)};
    const auto id_dims = random_subset(dims, rng);
    ref::Ref ids(id_dims);
    for (auto& id : ids.data) id = static_cast<double>(pick(rng, 0, vocab.size - 1));
    ReferenceCase hot;
    hot.name = "one_hot #" + std::to_string(seed);
    hot.inputs = {ids};
    hot.build = [vocab](const std::vector<Tensor>& t) {
      return one_hot(t[0], Dimension(vocab.name, vocab.size), 2, -1);
    };
    hot.reference = [vocab](const std::vector<ref::Ref>& t) { return ref::one_hot(t[0], vocab, 2, -1); };
    check_against_reference(hot, rng);

    ReferenceCase argmax;
    argmax.name = "argmax_one_hot #" + std::to_string(seed);
    const std::string axis = dims[0].name;
    argmax.inputs = {random_ref(shuffled(dims, rng), rng)};
    argmax.unsplittable = {axis};
    argmax.build = [axis](const std::vector<Tensor>& t) { return argmax_one_hot(t[0], axis); };
    argmax.reference = [axis](const std::vector<ref::Ref>& t) { return ref::argmax_one_hot(t[0], axis); };
    check_against_reference(argmax, rng);

    ReferenceCase lookup;
    lookup.name = "gather #" + std::to_string(seed);
    const auto table_dims = shuffled({vocab, dims[1]}, rng);
    lookup.inputs = {random_ref(table_dims, rng), ids};
    const auto out = ref::union_dims(id_dims, without(table_dims, "v"));
    lookup.build = [](const std::vector<Tensor>& t) { return gather(t[0], t[1], "v"); };
    lookup.reference = [vocab, out](const std::vector<ref::Ref>& t) {
      return ref::einsum({ref::one_hot(t[1], vocab, 1, 0), t[0]}, out);
    };
    check_against_reference(lookup, rng);
  }
}

TEST_CASE("softmax, log_softmax, cross entropy and layer norm equal the reference") {
  std::mt19937_64 rng(113);
  for (int seed = 0; seed < kSeeds; ++seed) {
    const auto dims = random_dims(rng, 3);
    const std::string axis = dims[pick(rng, 0, 2)].name;
    const auto x = shuffled(dims, rng);
    ReferenceCase soft;
    soft.name = "softmax #" + std::to_string(seed);
    soft.inputs = {random_ref(x, rng, -2, 2)};
    soft.build = [axis](const std::vector<Tensor>& t) { return softmax(t[0], axis); };
    soft.reference = [axis](const std::vector<ref::Ref>& t) { return ref::softmax(t[0], axis); };
    check_against_reference(soft, rng);

    ReferenceCase log_soft = soft;
    log_soft.name = "log_softmax #" + std::to_string(seed);
    log_soft.build = [axis](const std::vector<Tensor>& t) { return log_softmax(t[0], axis); };
    log_soft.reference = [axis](const std::vector<ref::Ref>& t) { return ref::log_softmax(t[0], axis); };
    check_against_reference(log_soft, rng);

    ReferenceCase xent;
    xent.name = "softmax_cross_entropy #" + std::to_string(seed);
    xent.inputs = {random_ref(x, rng, -2, 2), ref::softmax(random_ref(x, rng, -2, 2), axis)};  // soft labels
    xent.build = [axis](const std::vector<Tensor>& t) { return softmax_cross_entropy(t[0], t[1], axis); };
    xent.reference = [axis, x](const std::vector<ref::Ref>& t) {
      // As documented: logsumexp(logits) - sum(labels * logits), which is -sum(labels * log_softmax) only
      // when the labels sum to one.
      const auto rest = without(x, axis);
      const auto lse = ref::map(ref::einsum({ref::map(t[0], [](double v) { return std::exp(v); })}, rest),
                                [](double v) { return std::log(v); });
      return ref::elementwise({lse, ref::einsum({t[1], t[0]}, rest)}, rest,
                              [](const std::vector<double>& v) { return v[0] - v[1]; });
    };
    check_against_reference(xent, rng);

    ReferenceCase norm;
    norm.name = "layer_norm #" + std::to_string(seed);
    const ref::Dim& d =
        *std::find_if(dims.begin(), dims.end(), [&](const ref::Dim& e) { return e.name == axis; });
    norm.inputs = {random_ref(x, rng, -2, 2), random_ref({d}, rng, 0.5, 1.5), random_ref({d}, rng)};
    norm.build = [axis](const std::vector<Tensor>& t) { return layer_norm(t[0], axis, t[1], t[2], 1e-3); };
    norm.reference = [axis](const std::vector<ref::Ref>& t) {
      return ref::layer_norm(t[0], axis, t[1], t[2], 1e-3);
    };
    check_against_reference(norm, rng);
  }
}

TEST_CASE("the gradient through rename and reshape after reduce_max is in the variable's order") {
  // The issue's example: y = einsum(x[p,r], w[r,q]); z = rename(y, q->q2); m = reduce_max(z) -> [q2];
  // loss = sum(m * R[q2]). reduce_max's gradient once came back as [q2, p] and reshape read it as [p, q2].
  const ref::Dim p{"p", 3}, r{"r", 4}, q{"q", 5};
  std::mt19937_64 rng(114);
  ReferenceCase c;
  c.name = "rename after reduce_max";
  c.inputs = {random_ref({p, r}, rng), random_ref({r, q}, rng)};
  c.build = [](const std::vector<Tensor>& t) {
    const Tensor y = einsum({t[0], t[1]}, std::vector<std::string>{"p", "q"});
    return reduce_max(rename(y, "q", "q2"), Shape{Dimension("q2", 5)});
  };
  c.reference = [&](const std::vector<ref::Ref>& t) {
    const auto y = ref::einsum(t, {p, q});
    return ref::reduce_max(ref::reshape(y, {p, {"q2", 5}}), {{"q2", 5}});
  };
  check_against_reference(c, rng);
}

TEST_CASE("random einsums through the simulated interconnect equal the reference") {
  auto simulator = make_test_simulator(tpusim::topo::preset("torus-4x4"));
  std::mt19937_64 rng(115);
  HarnessOptions options;
  options.simulator = simulator.get();
  options.mesh = "a:4;b:4";
  options.random_layouts = 3;
  for (int seed = 0; seed < kSeeds; ++seed) {
    std::vector<ref::Dim> dims;
    for (const char* name : {"i", "j", "k", "l"}) dims.push_back({name, 4 * pick(rng, 1, 2)});
    const auto a = random_subset(dims, rng), b = random_subset(dims, rng);
    const auto out = random_subset(ref::union_dims(a, b), rng);
    ReferenceCase c;
    c.name = "simulated einsum #" + std::to_string(seed);
    c.inputs = {random_ref(a, rng), random_ref(b, rng)};
    c.build = [out](const std::vector<Tensor>& x) { return einsum({x[0], x[1]}, shape_of(out)); };
    c.reference = [out](const std::vector<ref::Ref>& x) { return ref::einsum(x, out); };
    check_against_reference(c, rng, options);
  }
}

TEST_CASE("mixture-of-experts dispatch and combine route each token to its top expert within capacity") {
  // Reference: top-1 routing as the paper's MoE layer does it, written as a loop over tokens in order; a
  // token past its expert's capacity in its group is dropped (its output is zero).
  const ref::Dim group{"group", 4}, position{"position", 6}, d_model{"d_model", 2},
      experts{"gate_experts", 4};
  const std::int64_t capacity = 2;
  std::mt19937_64 rng(116);
  for (int seed = 0; seed < kSeeds; ++seed) {
    ReferenceCase c;
    c.name = "moe #" + std::to_string(seed);
    c.inputs = {random_ref({group, position, d_model}, rng),
                random_ref({group, position, experts}, rng, -2, 2)};
    c.build = [](const std::vector<Tensor>& t) {
      const MoeDispatch dispatch =
          moe_dispatch(t[0], t[1], "group", "gate_experts", "experts", Dimension("capacity", capacity));
      return moe_combine(dispatch, scale(dispatch.expert_inputs, 3));  // every expert multiplies by 3
    };
    c.reference = [=](const std::vector<ref::Ref>& t) {
      const auto gates = ref::softmax(t[1], "gate_experts");
      ref::Ref out({group, position, d_model});
      const std::vector<std::string> names = {"group", "position", "gate_experts", "d_model"};
      for (std::int64_t g = 0; g < group.size; ++g) {
        std::vector<std::int64_t> used(experts.size, 0);
        for (std::int64_t p = 0; p < position.size; ++p) {
          std::int64_t best = 0;
          for (std::int64_t e = 1; e < experts.size; ++e) {
            if (t[1].at(names, {g, p, e, 0}) > t[1].at(names, {g, p, best, 0})) best = e;
          }
          if (used[best]++ >= capacity) continue;
          for (std::int64_t d = 0; d < d_model.size; ++d) {
            out.at_mut(names, {g, p, 0, d}) =
                gates.at(names, {g, p, best, 0}) * 3 * t[0].at(names, {g, p, 0, d});
          }
        }
      }
      return out;
    };
    c.layouts = {"group:a;experts:a", "group:a;experts:a;d_model:b", "group:b;experts:b"};
    check_against_reference(c, rng);
  }
}

TEST_CASE("relayouts and reductions with halving-doubling collectives equal the reference") {
  // Allconcats (an allgather per mesh dim) and allreduces run recursive doubling / halving on the simulator.
  auto simulator = make_test_simulator(tpusim::topo::preset("torus-4x4"));
  std::mt19937_64 rng(117);
  HarnessOptions options;
  options.simulator = simulator.get();
  options.mesh = "a:4;b:4";
  options.algorithms = {{"a", "halving_doubling"}, {"b", "halving_doubling"}};
  options.random_layouts = 3;
  for (int seed = 0; seed < kSeeds; ++seed) {
    std::vector<ref::Dim> dims;
    for (const char* name : {"i", "j", "k"}) dims.push_back({name, 4 * pick(rng, 1, 2)});
    const auto out = random_subset(dims, rng);
    const std::vector<ref::Dim> renamed = {{"p", dims[0].size}, {"q", dims[1].size}, {"r", dims[2].size}};
    ReferenceCase c;
    c.name = "halving-doubling relayout #" + std::to_string(seed);
    c.inputs = {random_ref(dims, rng), random_ref(shuffled(dims, rng), rng)};
    // The rename moves the layout (p, q, r are never split): an allconcat per split dim of the product.
    c.build = [out, renamed](const std::vector<Tensor>& x) {
      return reshape(
          einsum({x[0], x[1]},
                 Shape{shape_of({{"i", renamed[0].size}, {"j", renamed[1].size}, {"k", renamed[2].size}})}),
          shape_of(renamed));
    };
    c.reference = [renamed](const std::vector<ref::Ref>& x) {
      return ref::reshape(
          ref::einsum(x, {{"i", renamed[0].size}, {"j", renamed[1].size}, {"k", renamed[2].size}}), renamed);
    };
    check_against_reference(c, rng, options);
    ReferenceCase sum = c;
    sum.name = "halving-doubling allreduce #" + std::to_string(seed);
    sum.build = [out](const std::vector<Tensor>& x) { return einsum({x[0], x[1]}, shape_of(out)); };
    sum.reference = [out](const std::vector<ref::Ref>& x) { return ref::einsum(x, out); };
    check_against_reference(sum, rng, options);
  }
}
