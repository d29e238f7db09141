// The hierarchical allreduce of multislice pods (sim/algorithms/hierarchical.cpp) against its closed form
// written out here, on slices that are rings (every ICI transfer one hop, each NIC one message each way at a
// time: contention free), for random slice sizes, slice counts and sizes; real data against the reference
// sum; the fit check; auto's choice; and the lower bound's DCN term against the counting argument by hand.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <random>

#include "../sim_test_support.hpp"
#include "sim/algorithm_choice.hpp"
#include "sim/algorithm_registry.hpp"
#include "sim/bounds.hpp"
#include "sim/simulator.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

// ICI: bidirectional ring reduce-scatter and allgather over the m chips of a slice, each (m-1) steps of
// a + (S/m/2)/B; DCN: a ring allreduce of the S/m share over N slices, 2(N-1) steps of a_dcn + (S/m/N)/B_dcn.
double hierarchical_hand_closed_form_s(int m, int n, double bytes, double a, double b, double a_dcn,
                                       double b_dcn) {
  double ici = 0;
  for (int step = 0; step < 2 * (m - 1); ++step) ici += a + bytes / m / 2 / b;
  double dcn = 0;
  for (int step = 0; step < 2 * (n - 1); ++step) dcn += a_dcn + bytes / m / n / b_dcn;
  return ici + dcn;
}

}  // namespace

TEST_CASE("a contention-free hierarchical allreduce takes its closed form, for random slices and sizes") {
  std::mt19937 random(2026);
  for (int trial = 0; trial < 8; ++trial) {
    const int m = std::uniform_int_distribution<int>(3, 8)(random);
    const int n = std::uniform_int_distribution<int>(2, 5)(random);
    const int bw_GBps = std::uniform_int_distribution<int>(20, 100)(random);
    const int dcn_GBps = std::uniform_int_distribution<int>(1, 12)(random);
    const int dcn_us = std::uniform_int_distribution<int>(2, 40)(random);
    // A whole number of 2mN-element pieces, so that every split is even (as the formula takes it).
    const std::uint64_t elements = 2ull * m * n * std::uniform_int_distribution<int>(1, 4096)(random);
    const std::string spec = fmt::format("multislice:{}x(ring:{}),bw={}GB/s,dcn_bw={}GB/s,dcn_lat={}us", n, m,
                                         bw_GBps, dcn_GBps, dcn_us);
    INFO(spec << " elements " << elements);
    double simulated = 0, predicted = 0, closed = 0;
    int contention_free = 0, uniform = 0;
    testing::in_child([&](std::ostream& out) {
      const auto topology = topo::topology_from_spec(spec);
      auto request = testing::request_along(topology, "allreduce", "hierarchical", "4B", "all");
      request.elements = elements;
      const auto prediction = predict_alpha_beta(topology, request);
      Simulator simulator(topology);
      out << simulator.run(request).time_s << " " << prediction.time_s << " " << prediction.closed_form_s
          << " " << prediction.contention_free << " " << prediction.uniform;
    }) >>
        simulated >> predicted >> closed >> contention_free >> uniform;
    const double expected = hierarchical_hand_closed_form_s(m, n, 4.0 * elements, 1e-6, bw_GBps * 1e9,
                                                            dcn_us * 1e-6, dcn_GBps * 1e9);
    CHECK(contention_free == 1);
    CHECK(uniform == 1);
    CHECK(simulated == Approx(expected).epsilon(1e-12));
    CHECK(predicted == Approx(expected).epsilon(1e-12));
    CHECK(closed == Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("the hierarchical allreduce sums every member's buffer, across slices and cores") {
  auto in = testing::in_child([](std::ostream& out) {
    const auto topology = topo::topology_from_spec("multislice:3x(torus:4x4),cores=2");
    Simulator simulator(topology);
    // Every core of the pod in one group; then one group per (core, y) along x and the slices.
    testing::write_data_line(
        out, "all",
        testing::run_with_data(
            simulator, testing::request_along(topology, "allreduce", "hierarchical", "4000B", "all")));
    testing::write_data_line(
        out, "x+slice",
        testing::run_with_data(
            simulator, testing::request_along(topology, "allreduce", "hierarchical", "1204B", "x+slice")));
    testing::write_data_line(
        out, "slice",
        testing::run_with_data(
            simulator, testing::request_along(topology, "allreduce", "hierarchical", "36B", "slice")));
  });
  CHECK(testing::check_data_lines(in) == 3);
}

TEST_CASE("the hierarchical allreduce fits only groups that span slices evenly") {
  const auto pod = topo::topology_from_spec("multislice:2x(torus:4x4)");
  CHECK_NOTHROW(
      check_algorithms(pod, testing::request_along(pod, "allreduce", "hierarchical", "1MiB", "x+slice")));
  CHECK_THROWS_WITH(
      check_algorithms(pod, testing::request_along(pod, "allreduce", "hierarchical", "1MiB", "x")),
      Catch::Contains("lies within one slice"));
  auto uneven = testing::request_along(pod, "allreduce", "hierarchical", "1MiB", "all");
  uneven.groups = {testing::make_group({3}, 15, 1)};  // chips 15 (slice 0), 16 and 17 (slice 1)
  CHECK_THROWS_WITH(check_algorithms(pod, uneven), Catch::Contains("different numbers of its members"));
  const auto single = topo::topology_from_spec("torus:4x4");
  CHECK_THROWS_WITH(
      check_algorithms(single, testing::request_along(single, "allreduce", "hierarchical", "1MiB")),
      Catch::Contains("needs a multislice pod"));
}

TEST_CASE("auto chooses the hierarchical allreduce across slices, and not within one") {
  std::string across, within;
  testing::in_child([](std::ostream& out) {
    const auto topology = topo::preset("tpu-v5p-cube-x2");
    Simulator simulator(topology);
    out << fastest_algorithms(simulator,
                              testing::request_along(topology, "allreduce", "auto", "64MiB", "all"))
               .algorithms.front()
               .name()
        << " "
        << fastest_algorithms(simulator,
                              testing::request_along(topology, "allreduce", "auto", "64MiB", "x+y+z"))
               .algorithms.front()
               .name();
  }) >>
      across >> within;
  CHECK(across == "hierarchical");
  CHECK(within != "hierarchical");
}

TEST_CASE(
    "the lower bound's DCN term: 2(N-1)S over the NICs of every chip, met by the hierarchical DCN phase") {
  const auto pod = topo::topology_from_spec("multislice:4x(torus:4x4),dcn_bw=2GB/s");
  const auto request = testing::request_along(pod, "allreduce", "hierarchical", "64MiB", "all");
  const double s = 64.0 * 1024 * 1024;
  const auto bound = lower_bound(pod, request);
  // One group of 64 chips in 4 slices: 2 x 3 x S bytes must cross, through 64 NICs of 2 GB/s.
  CHECK(bound.dcn_s == Approx(2 * 3 * s / (64 * 2e9)).epsilon(1e-15));
  CHECK(bound.binding == "dcn");
  CHECK(bound.time_s == bound.dcn_s);
  // The hierarchical DCN phase moves 2(N-1)/N of S/16 through each NIC: the same time.
  CHECK(bound.dcn_s == Approx(2.0 * 3 / 4 * (s / 16) / 2e9).epsilon(1e-12));
  const auto prediction = predict_alpha_beta(pod, request);
  CHECK(prediction.time_s >= bound.time_s);
  // Single-slice pods have no DCN term.
  const auto single = topo::topology_from_spec("torus:4x4");
  CHECK(lower_bound(single, testing::request_along(single, "allreduce", "", "64MiB")).dcn_s == 0);
}
