// On a torus zone the platform computes its routes itself rather than asking SimGrid (whose route lookup took
// 9% of a recursive doubling over 16,384 chips): every route must be SimGrid's, link for link and in order,
// whichever pair is asked first, since the executor adds each transfer's bytes to these links. The links are
// found by the names the torus zone gave them.
#include "sim/engine/platform.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <simgrid/s4u.hpp>

#include "topologies/presets.hpp"

using namespace tpusim;
namespace s4u = simgrid::s4u;

namespace {

void check_platform_routes(const char* spec, const char* faults = nullptr) {
  auto topology = topo::topology_from_spec(spec);
  if (faults != nullptr) topology = topology.with_faults(faults);
  static char name[] = "tpusim-test";
  static int argc = 1;
  static char* argv[] = {name, nullptr};
  new s4u::Engine(&argc, argv);  // one engine per process, never destroyed (as the simulator's)
  sim::Platform platform(topology);
  const int cores = topology.cores_per_chip();
  std::vector<std::pair<int, int>> pairs;
  for (int from = 0; from < topology.num_chips(); ++from) {
    for (int to = 0; to < topology.num_chips(); ++to) {
      if (from != to || cores > 1) pairs.emplace_back(from, to);
    }
  }
  // A shuffled order: which route first meets a link must not matter.
  std::shuffle(pairs.begin(), pairs.end(), std::mt19937(7));
  for (int pass = 0; pass < 2; ++pass) {  // the second from the platform's cache
    for (const auto& [from, to] : pairs) {
      std::vector<s4u::Link*> links;
      double latency = 0;
      platform.host(from)->route_to(platform.host(to), links, &latency);
      std::vector<std::string> simgrid_names, platform_names;
      for (auto* link : links) simgrid_names.push_back(link->get_name());
      const int src = from * cores, dst = to * cores + (from == to ? 1 : 0);
      for (const int link : platform.route(src, dst)) platform_names.push_back(platform.links()[link].name);
      INFO(spec << ": chip " << from << " -> " << to << ", pass " << pass);
      REQUIRE(platform_names == simgrid_names);
    }
  }
}

}  // namespace

TEST_CASE("the platform's own torus routes are SimGrid's, ties at k/2 and size-two dimensions included") {
  check_platform_routes("torus:8x2x6");
}

TEST_CASE("the platform's own routes over odd and size-one torus dimensions and loopbacks are SimGrid's") {
  check_platform_routes("torus:3x1x5,cores=2");
}

TEST_CASE("the platform's own routes on a torus with a slow link are SimGrid's") {
  check_platform_routes("torus:4x6", "slow:1.2+y:0.5");
}
