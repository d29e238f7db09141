// The routes bounds.cpp computes without SimGrid are the ones SimGrid's platform really takes.
#include "sim/routes.hpp"

#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>

#include "sim/simulator.hpp"
#include "topologies/presets.hpp"
#include "topologies/rank_mapping.hpp"

using namespace tpusim;

namespace {

void check_routes(const char* spec) {
  const auto topology = topo::topology_from_spec(spec);
  sim::Simulator simulator(topology);
  auto* engine = simgrid::s4u::Engine::get_instance();
  const int cores = topology.cores_per_chip();
  for (int from = 0; from < topology.num_chips(); ++from) {
    for (int to = 0; to < topology.num_chips(); ++to) {
      if (from == to && cores == 1) continue;
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      engine->host_by_name("chip-" + std::to_string(from))
          ->route_to(engine->host_by_name("chip-" + std::to_string(to)), links, &latency);
      const auto mine = sim::route_between(topology, from * cores, to * cores + (from == to ? 1 : 0));
      std::vector<std::string> simgrid_names, my_names;
      for (auto* link : links) simgrid_names.push_back(link->get_name());
      for (const int link : mine.links) my_names.push_back(sim::directed_link_name(topology, link));
      INFO(spec << ": chip " << from << " -> " << to);
      CHECK(my_names == simgrid_names);
      CHECK(mine.latency_s == Approx(latency).epsilon(1e-12));
    }
  }
}

}  // namespace

TEST_CASE("torus routes match SimGrid including its k/2 tie rule") { check_routes("torus-8x8"); }
TEST_CASE("odd and size-two torus dimensions route like SimGrid") { check_routes("torus:3x2x5"); }
TEST_CASE("rings and loopbacks of two-core chips route like SimGrid") { check_routes("torus:6,cores=2"); }
TEST_CASE("mesh and line routes are dimension order without wraparound") { check_routes("mesh:4x3,cores=2"); }

TEST_CASE("SimGrid's tie rule goes both ways at k/2") {
  CHECK(sim::torus_goes_up(0, 4, 8));
  CHECK_FALSE(sim::torus_goes_up(4, 0, 8));
  CHECK(sim::torus_goes_up(1, 5, 8));
  CHECK(sim::torus_goes_up(5, 1, 8));
}
