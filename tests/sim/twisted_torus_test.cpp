// Twisted tori (topologies/twist.hpp) in the simulator: a message over a twisted wraparound takes one hop
// (hand computation), real data stays correct, and the all-to-all runs faster than on the regular torus of
// the same chips, as the twisted torus's larger bisection promises (Camara et al., IEEE TPDS 2010; TPU v4's
// twisted slices, Jouppi et al., ISCA 2023).
#include <catch2/catch.hpp>

#include "sim/algorithm_registry.hpp"
#include "sim/bounds.hpp"
#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"
#include "topologies/rank_mapping.hpp"

using namespace tpusim;
using namespace tpusim::sim;

namespace {

double permute_s(const std::string& spec, int from_chip_x, int from_chip_y, int to_chip_x, int to_chip_y) {
  double time_s = 0, predicted_s = 0;
  testing::in_child([&](std::ostream& out) {
    const auto topology = topo::topology_from_spec(spec);
    Simulator simulator(topology);
    CollectiveRequest request;
    request.kind = CollectiveKind::permute;
    request.elements = (1 << 20) / 4;
    request.permutation = {{topo::chip_id(topology, {from_chip_x, from_chip_y}),
                            topo::chip_id(topology, {to_chip_x, to_chip_y})}};
    out << simulator.run(request).time_s << " " << predict_alpha_beta(topology, request).time_s;
  }) >>
      time_s >> predicted_s;
  CHECK(time_s == Approx(predicted_s).epsilon(1e-9));
  return time_s;
}

}  // namespace

TEST_CASE("a message over a twisted wraparound takes one hop where the regular torus takes five") {
  // 4x8 chips: (3,1) -> (0,5) is the twisted x wraparound itself; on the regular torus it is one x hop and
  // four y hops. One message, so alpha per hop plus S/B.
  const auto links = topo::topology_from_spec("torus:4x8").inter_chip();
  const double bytes = 1 << 20;
  CHECK(permute_s("torus:4x8,twist_x=y+4", 3, 1, 0, 5) ==
        Approx(links.latency_s() + bytes / links.bandwidth_Bps()).epsilon(1e-9));
  CHECK(permute_s("torus:4x8", 3, 1, 0, 5) ==
        Approx(5 * links.latency_s() + bytes / links.bandwidth_Bps()).epsilon(1e-9));
}

TEST_CASE("collectives move real data correctly on a twisted torus") {
  auto in = testing::in_child([&](std::ostream& out) {
    const auto topology = topo::topology_from_spec("torus:4x4x8,cores=2,twist_x=z+4,twist_y=z+4");
    Simulator simulator(topology);
    const std::vector<std::tuple<const char*, const char*, const char*>> runs = {
        {"allreduce", "bidir_ring", "all"},       {"allreduce", "halving_doubling", "all"},
        {"allreduce", "multiport", "core,x,y,z"}, {"allreduce", "recursive_doubling", "core,x,y,z"},
        {"reduce_scatter", "ring", "all"},        {"allgather", "halving_doubling", "all"},
        {"alltoall", "pairwise", "all"},          {"alltoall", "direct", "core+x"},
        {"broadcast", "binomial", "all"},         {"permute", "direct", "core+x+y"}};
    for (const auto& [op, algorithm, axes] : runs) {
      const auto run =
          testing::run_with_data(simulator, testing::request_along(topology, op, algorithm, "4KiB", axes));
      testing::write_data_line(out, std::string(op) + "/" + algorithm, run);
    }
  });
  CHECK(testing::check_data_lines(in) == 10);
}

TEST_CASE("the all-to-all runs faster on the twisted torus than on the regular one") {
  auto alltoall = [](const std::string& spec) {
    double time_s = 0, bound_s = 0;
    testing::in_child([&](std::ostream& out) {
      const auto topology = topo::topology_from_spec(spec);
      Simulator simulator(topology);
      const auto request = testing::request_along(topology, "alltoall", "direct", "4MiB");
      out << simulator.run(request).time_s << " " << lower_bound(topology, request).bisection_s;
    }) >>
        time_s >> bound_s;
    CHECK(time_s >= bound_s);
    return std::make_pair(time_s, bound_s);
  };
  for (const auto& [regular, twisted] :
       {std::pair<std::string, std::string>{"torus:4x8", "torus:4x8,twist_x=y+4"},
        {"torus:2x2x4,cores=2", "torus:2x2x4,cores=2,twist_x=z+2,twist_y=z+2"}}) {
    INFO(regular);
    const auto [regular_s, regular_bound_s] = alltoall(regular);
    const auto [twisted_s, twisted_bound_s] = alltoall(twisted);
    CHECK(twisted_bound_s == Approx(regular_bound_s / 2).epsilon(1e-12));  // twice the bisection
    CHECK(twisted_s < 0.85 * regular_s);
  }
}
