// Randomised property tests of the op families that move data along dimensions (reshape, rename, shift,
// concat, slice, pad, cumsum, one-hot, gather) and of the composites built from them, forward and gradient,
// against the independent double-precision reference (reference.hpp), on one core and random layouts.
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
