#include "topologies/chip_graph.hpp"

#include <catch2/catch.hpp>

#include "topologies/presets.hpp"

using namespace tpusim::topo;

TEST_CASE("figures of the TPU v2 pod torus") {
  const auto figures = graph_figures(preset("tpu-v2-pod"));
  CHECK(figures.chips == 256);
  CHECK(figures.links == 512);
  CHECK(figures.diameter_hops == 16);
  CHECK(figures.bisection_links == 32);  // 16 rows, each cut twice thanks to the wraparound
  // Mean over distinct pairs of the sum of two independent ring distances on 16-rings: 2 * 64/16 * 256/255.
  CHECK(figures.average_hops == Approx(2 * 4.0 * 256.0 / 255.0));
}

TEST_CASE("a mesh without wraparound has fewer links, a longer diameter and half the bisection") {
  const auto mesh = graph_figures(preset("mesh-4x4"));
  const auto torus = graph_figures(preset("torus-4x4"));
  CHECK(mesh.links == 24);
  CHECK(torus.links == 32);
  CHECK(mesh.diameter_hops == 6);
  CHECK(torus.diameter_hops == 4);
  CHECK(mesh.bisection_links == 4);
  CHECK(torus.bisection_links == 8);
}

TEST_CASE("figures of a 3D torus and a ring") {
  const auto cube = graph_figures(preset("torus-4x4x4"));
  CHECK(cube.diameter_hops == 6);
  CHECK(cube.bisection_links == 32);
  const auto ring = graph_figures(preset("ring-8"));
  CHECK(ring.diameter_hops == 4);
  CHECK(ring.bisection_links == 2);
  CHECK(ring.average_hops == Approx(16.0 / 7.0));
}

TEST_CASE("dimension-order routes go along x first, the short way round") {
  const Topology torus = preset("torus-8x8");
  CHECK(dimension_order_route(torus, 0, 7) == std::vector<int>{0, 7});
  CHECK(dimension_order_route(torus, 0, 9) == std::vector<int>{0, 1, 9});
  CHECK(hop_count(torus, 0, 4 + 8 * 4) == 8);
  const Topology mesh = preset("mesh-4x4");
  CHECK(dimension_order_route(mesh, 0, 3) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("one search gives a torus's figures, the same as searching from every chip") {
  // A 3x5 mesh's figures come from every chip; the torus of the same shape from one.
  const auto torus = graph_figures(tpusim::topo::topology_from_spec("torus:3x5"));
  CHECK(torus.diameter_hops == 1 + 2);
  // Mean ring distance on a 3-ring over all 3 targets is 2/3, on a 5-ring 6/5; over distinct pairs: x 15/14.
  CHECK(torus.average_hops == Approx((2.0 / 3 + 6.0 / 5) * 15.0 / 14.0));
  const auto mesh = graph_figures(tpusim::topo::topology_from_spec("mesh:3x5"));
  CHECK(mesh.diameter_hops == 2 + 4);
  // Mean line distance (k^2-1)/(3k): 8/9 and 24/15.
  CHECK(mesh.average_hops == Approx((8.0 / 9 + 24.0 / 15) * 15.0 / 14.0));
}

TEST_CASE("large tori are described quickly and large meshes are refused") {
  const auto big = graph_figures(tpusim::topo::topology_from_spec("torus:256x256"));
  CHECK(big.diameter_hops == 256);
  CHECK(big.bisection_links == 2 * 256);
  CHECK_THROWS_WITH(
      graph_figures(tpusim::topo::topology_from_spec("mesh:128x128")),
      "topology 'mesh:128x128': hop figures of a mesh are computed up to 4096 chips, it has 16384");
  CHECK_THROWS_WITH(tpusim::topo::topology_from_spec("torus:4096x4096"),
                    "topology 'torus:4096x4096': more than 65536 chips");
}

TEST_CASE("figures of a faulty pod leave links down out and count slow links at their speed") {
  // torus-4x4 with the four x links from column 0 to column 1 down (hand computation): 28 links left; the
  // plane between column 0 and column 1 (and between 2 and 3) now cuts 4 live links instead of 8; without
  // those links chips (0,y) and (1,y) are 3 hops apart, and the farthest chips are 5 hops apart.
  const auto faulty = preset("torus-4x4").with_faults("down:0.0+x;down:0.1+x;down:0.2+x;down:0.3+x");
  const auto figures = graph_figures(faulty);
  const double link_Bps = faulty.inter_chip().bandwidth_Bps();
  CHECK(figures.links == 28);
  CHECK(figures.bisection_links == 4);
  CHECK(figures.bisection_Bps == 2 * 4 * link_Bps);
  CHECK(halving_cut_Bps(faulty, 0) == 4 * link_Bps);
  CHECK(halving_cut_Bps(faulty, 1) == 8 * link_Bps);  // y planes keep every link
  CHECK(figures.diameter_hops == 5);
  // One link at half speed on the pod: the weakest plane is one through it, 31.5 links' worth.
  const auto slow = preset("tpu-v2-pod").with_faults("slow:3.4+x:0.5");
  CHECK(graph_figures(slow).bisection_Bps == Approx(2 * 31.5 * link_Bps).epsilon(1e-12));
  CHECK(graph_figures(preset("tpu-v2-pod")).bisection_Bps == 2 * 32 * link_Bps);
}
