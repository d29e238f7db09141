// The reference cases with every collective routed through the simulated interconnect (SimGrid), with the
// default and the halving-doubling algorithms, and mixture-of-experts routing, against the independent
// double-precision reference (reference.hpp).
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
