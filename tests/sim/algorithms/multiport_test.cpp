// The multiport torus allreduce and its reduce-scatter and allgather halves: real data on random tori against
// plain double-precision loops, times against hand computations where they are contention free, and the
// targets against the injection bound on the TPU v2 pod and on 3D tori. Every topology runs in a child
// process: one Simulator per process.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "../sim_test_support.hpp"
#include "sim/algorithm_registry.hpp"
#include "sim/bounds.hpp"
#include "sim/simulator.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

struct DataOutcome {
  double max_relative_error = -1;
  std::uint64_t compared = 0;
  double time_s = 0;
  double bound_s = 0;
};

// The element range [lo, hi) of chunk i of `parts` over `elements`, written out here from the data layout
// of sim/collective.hpp (chunk i is [i*elements/p, (i+1)*elements/p)).
std::pair<std::uint64_t, std::uint64_t> chunk(std::uint64_t elements, int parts, int i) {
  return {elements * i / parts, elements * (i + 1) / parts};
}

// Every member of every group must end as the collective says, computed here in double precision from inputs
// drawn here: nothing of the engine's reference is used. allreduce: every element the sum over the group;
// reduce_scatter: position i's chunk i that sum; allgather: every member holds chunk j of position j's input.
DataOutcome run_with_data(const std::string& kind, const std::string& spec, const std::string& axes,
                          std::uint64_t elements, unsigned seed) {
  auto in = testing::in_child([&](std::ostream& out) {
    const auto topology = topo::topology_from_spec(spec);
    Simulator simulator(topology);
    auto request = testing::request_along(topology, kind, "multiport", "4", axes);
    request.elements = elements;
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    Buffers inputs;
    for (const auto& group : request.groups) {
      for (const Rank rank : group.ranks) {
        auto& buffer = inputs[rank];
        for (std::uint64_t e = 0; e < elements; ++e) buffer.push_back(value(random));
      }
    }
    Buffers data = inputs;
    request.data = &data;
    const auto result = simulator.run(request);
    double worst = 0;
    std::uint64_t compared = 0;
    for (const auto& group : request.groups) {
      const int p = group.size();
      for (int i = 0; i < p; ++i) {
        const Rank rank = group.ranks[i];
        for (int j = 0; j < p; ++j) {
          if (kind == "reduce_scatter" && j != i) continue;
          const auto [lo, hi] = chunk(elements, p, j);
          for (std::uint64_t e = lo; e < hi; ++e) {
            double expected = 0, magnitude = 0;
            if (kind == "allgather") {
              expected = inputs.at(group.ranks[j])[e];
            } else {
              for (const Rank member : group.ranks) {
                expected += inputs.at(member)[e];
                magnitude += std::fabs(inputs.at(member)[e]);
              }
            }
            // Sums may round differently in another order; a gathered value must arrive exactly.
            const double error = std::fabs(data.at(rank)[e] - expected);
            worst = std::max(worst, kind == "allgather" ? error : error / std::max(magnitude, 1e-30));
            ++compared;
          }
        }
      }
    }
    request.data = nullptr;
    out << worst << " " << compared << " " << result.time_s << " " << lower_bound(topology, request).time_s;
  });
  DataOutcome outcome;
  in >> outcome.max_relative_error >> outcome.compared >> outcome.time_s >> outcome.bound_s;
  INFO(in.str());
  REQUIRE(outcome.compared > 0);
  return outcome;
}

struct Timing {
  double multiport_s = 0, bucket2d_s = 0, bound_s = 0;
  std::string binding;
};

Timing time_against_bucket2d(const std::string& spec, const std::string& bytes) {
  auto in = testing::in_child([&](std::ostream& out) {
    const auto topology = topo::topology_from_spec(spec);
    Simulator simulator(topology);
    const auto request = testing::request_along(topology, "allreduce", "multiport", bytes,
                                                topo::per_axis_group_axes(topology));
    const auto bound = lower_bound(topology, request);
    const double multiport = simulator.run(request).time_s;
    const auto& dims = topology.chip_dims();
    const std::string bucket_axes =
        std::string(topology.cores_per_chip() > 1 ? "core+" : "") + "x," + (dims.size() == 3 ? "y+z" : "y");
    const double bucket =
        simulator.run(testing::request_along(topology, "allreduce", "bucket2d", bytes, bucket_axes)).time_s;
    out << multiport << " " << bucket << " " << bound.time_s << " " << bound.binding;
  });
  Timing timing;
  in >> timing.multiport_s >> timing.bucket2d_s >> timing.bound_s >> timing.binding;
  INFO(in.str());
  REQUIRE(timing.multiport_s > 0);
  return timing;
}

}  // namespace

TEST_CASE("multiport allreduce, reduce-scatter and allgather move real data on random tori") {
  std::mt19937 random(20261130);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  for (int trial = 0; trial < 12; ++trial) {
    const int dimensions = pick(2, 3);
    std::string spec = "torus:";
    for (int d = 0; d < dimensions; ++d)
      spec += (d ? "x" : "") + std::to_string(pick(2, dimensions == 2 ? 5 : 3));
    const int cores = pick(1, 3);
    spec += ",cores=" + std::to_string(cores);
    const auto topology = topo::topology_from_spec(spec);
    // One group of every axis (the cores merged into each part), or, with several cores, one torus group per
    // core running at once and sharing the links.
    const std::string axes = cores > 1 && trial % 3 == 0 ? (dimensions == 2 ? "x,y" : "x,y,z")
                                                         : topo::per_axis_group_axes(topology);
    const std::uint64_t elements = static_cast<std::uint64_t>(pick(1, 700));
    for (const std::string kind : {"allreduce", "reduce_scatter", "allgather"}) {
      INFO(kind << " on " << spec << " along " << axes << ", " << elements << " elements");
      const auto outcome = run_with_data(kind, spec, axes, elements, trial + 1);
      CHECK(outcome.max_relative_error <= (kind == "allgather" ? 0.0 : 1e-6));
      CHECK(outcome.time_s >= outcome.bound_s);
    }
  }
}

TEST_CASE("multiport on a 4x4 torus takes the time of one bucket allreduce on half the data") {
  // Hand computation (sim/README.md, Closed forms: bidirectional rings of k = 4 over one-hop links): each
  // half of S goes through a reduce-scatter along its first dimension, an allreduce of S/8 along the other
  // and an allgather back, both halves at once on disjoint links.
  const auto topology = topo::preset("torus-4x4");
  const double alpha = topology.inter_chip().latency_s(), bandwidth = topology.inter_chip().bandwidth_Bps();
  const double s = 1024.0 * 1024, half = s / 2, k = 4;
  const double reduce_scatter = (k - 1) * alpha + (k - 1) / k * half / (2 * bandwidth);
  const double allreduce_rest = 2 * ((k - 1) * alpha + (k - 1) / k * (half / k) / (2 * bandwidth));
  double simulated_s = 0;
  testing::in_child([&](std::ostream& out) {
    Simulator simulator(topology);
    out << simulator.run(testing::request_along(topology, "allreduce", "multiport", "1MiB", "x,y")).time_s;
  }) >>
      simulated_s;
  CHECK(simulated_s == Approx(2 * reduce_scatter + allreduce_rest).epsilon(1e-9));
}

TEST_CASE("multiport reduce-scatter and allgather on a 4x4 torus take two ring phases on half the data") {
  // Hand computation (sim/README.md, Closed forms: bidirectional rings of k = 4 over one-hop links): each
  // half of S is reduce-scattered along its own dimension, then along the other on the quarter of it left,
  // both halves at once on disjoint links; the allgather is the same phases backwards.
  const auto topology = topo::preset("torus-4x4");
  const double alpha = topology.inter_chip().latency_s(), bandwidth = topology.inter_chip().bandwidth_Bps();
  const double s = 1024.0 * 1024, half = s / 2, k = 4;
  auto ring_phase = [&](double bytes) { return (k - 1) * alpha + (k - 1) / k * bytes / (2 * bandwidth); };
  const double expected_s = ring_phase(half) + ring_phase(half / k);
  for (const char* kind : {"reduce_scatter", "allgather"}) {
    INFO(kind);
    double simulated_s = 0, closed_form_s = 0;
    testing::in_child([&](std::ostream& out) {
      Simulator simulator(topology);
      const auto request = testing::request_along(topology, kind, "multiport", "1MiB", "x,y");
      out << simulator.run(request).time_s << " " << closed_form(topology, request, alpha, bandwidth).time_s;
    }) >>
        simulated_s >> closed_form_s;
    CHECK(simulated_s == Approx(expected_s).epsilon(1e-9));
    CHECK(closed_form_s == Approx(expected_s).epsilon(1e-9));
  }
}

TEST_CASE("multiport reduce-scatter and allgather reach 1.3x of the chip injection bound") {
  // On the TPU v2 pod each chip must send (C-1)/C x 64 MiB over its four links (270 us) once its cores'
  // data is combined; a ring over all 512 cores drives two links per chip.
  for (const char* spec : {"tpu-v2-pod", "torus:8x8x8", "torus:4x4x4,cores=2"}) {
    for (const char* kind : {"reduce_scatter", "allgather"}) {
      INFO(kind << " on " << spec);
      auto in = testing::in_child([&](std::ostream& out) {
        const auto topology = topo::topology_from_spec(spec);
        Simulator simulator(topology);
        const auto request =
            testing::request_along(topology, kind, "multiport", "96MiB", topo::per_axis_group_axes(topology));
        const auto bound = lower_bound(topology, request);
        const double ring =
            simulator.run(testing::request_along(topology, kind, "bidir_ring", "96MiB")).time_s;
        out << simulator.run(request).time_s << " " << ring << " " << bound.time_s << " " << bound.binding;
      });
      double multiport_s = 0, ring_s = 0, bound_s = 0;
      std::string binding;
      in >> multiport_s >> ring_s >> bound_s >> binding;
      INFO(in.str());
      // With one core per chip the core's injection bound is the chip's.
      CHECK((binding == "chip_injection" || binding == "core_injection"));
      CHECK(multiport_s >= bound_s);
      CHECK(multiport_s <= 1.3 * bound_s);
      CHECK(multiport_s < ring_s / 2);
    }
  }
}

TEST_CASE("multiport on the TPU v2 pod reaches 1.3x of the chip injection bound, bucket2d does not") {
  // 64 MiB per core: each chip must send 2 (C-1)/C x 64 MiB over its four links (539 us).
  const auto timing = time_against_bucket2d("tpu-v2-pod", "64MiB");
  CHECK(timing.binding == "chip_injection");
  CHECK(timing.multiport_s <= 0.70e-3);
  CHECK(timing.multiport_s <= 1.3 * timing.bound_s);
  CHECK(timing.multiport_s >= timing.bound_s);
  CHECK(timing.bucket2d_s > 2 * timing.bound_s);
}

TEST_CASE("multiport on 3D tori stays within 1.3x of the injection bound") {
  // Sizes divisible by the three parts, so that rounds repeat and fold.
  for (const char* spec : {"torus:8x8x8", "torus:4x4x4,cores=2"}) {
    INFO(spec);
    const auto timing = time_against_bucket2d(spec, "96MiB");
    CHECK(timing.multiport_s <= 1.3 * timing.bound_s);
    CHECK(timing.multiport_s >= timing.bound_s);
    CHECK(timing.multiport_s < timing.bucket2d_s / 2);
  }
}

TEST_CASE("multiport needs two dimensions between chips") {
  const auto topology = topo::topology_from_spec("torus:4x4,cores=2");
  for (const char* axes : {"all", "core,x", "x"}) {
    INFO(axes);
    const auto request = testing::request_along(topology, "allreduce", "multiport", "64KiB", axes);
    CHECK_THROWS_WITH(check_algorithms(topology, request), Catch::Contains("multiport needs a group"));
  }
  for (const char* axes : {"core,x,y", "x,y", "core+x,y"}) {
    INFO(axes);
    CHECK_NOTHROW(check_algorithms(
        topology, testing::request_along(topology, "allreduce", "multiport", "64KiB", axes)));
  }
}
