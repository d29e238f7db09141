#include "topologies/rank_mapping.hpp"

#include <catch2/catch.hpp>

#include "topologies/presets.hpp"

using namespace tpusim::topo;

TEST_CASE("rank and coordinate are inverse on every core of several topologies") {
  for (const char* spec :
       {"tpu-v2-pod", "torus-4x4x4", "ring-8", "mesh:3x5,cores=4", "torus:2x3x5,cores=2"}) {
    const Topology topology = topology_from_spec(spec);
    for (Rank rank = 0; rank < topology.num_cores(); ++rank) {
      REQUIRE(rank_of(topology, coord_of(topology, rank)) == rank);
    }
  }
}

TEST_CASE("the core index varies fastest, then x, then y") {
  const Topology pod = preset("tpu-v2-pod");
  CHECK(rank_of(pod, {1, {0, 0}}) == 1);
  CHECK(rank_of(pod, {0, {1, 0}}) == 2);
  CHECK(rank_of(pod, {0, {0, 1}}) == 32);
  CHECK(rank_of(pod, {1, {15, 15}}) == 511);
  CHECK(coord_of(pod, 35) == CoreCoord{1, {1, 1}});
  CHECK(chip_of(pod, 35) == 17);
  CHECK(chip_id(pod, {1, 1}) == 17);
}
