// The TPU v5e, v5p and v6e presets against Google Cloud's published figures, worked by hand: chips and shape,
// wraparound, cores, the link rate each way derived from each chip's bidirectional ICI bandwidth over its
// links, and the pods' published bisection. Pages: https://docs.cloud.google.com/tpu/docs/v5e, /v5p, /v6e.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "topologies/chip_graph.hpp"
#include "topologies/presets.hpp"

using namespace tpusim::topo;

namespace {

int chips(const Topology& topology) {
  int count = 1;
  for (const int size : topology.chip_dims()) count *= size;
  return count;
}

// Links each chip has: every full-duplex link joins two chips.
double links_per_chip(const Topology& topology) {
  return 2.0 * graph_figures(topology).links / chips(topology);
}

}  // namespace

TEST_CASE("TPU v5e: a 16x16 torus pod, a 4x4 slice without wraparound, one core per chip, 50 GB/s links") {
  // The v5e page: 256 chips per pod in a 2D torus, one TensorCore per chip, 4 ICI ports and 400 GB/s of
  // bidirectional ICI bandwidth per chip: 400e9 / 4 ports / 2 directions = 50e9 B/s per link each way.
  const Topology pod = preset("tpu-v5e-256");
  CHECK(pod.chip_dims() == std::vector<int>{16, 16});
  CHECK(chips(pod) == 256);
  CHECK(pod.kind() == "torus");
  CHECK(pod.cores_per_chip() == 1);
  CHECK(pod.num_cores() == 256);
  CHECK(links_per_chip(pod) == 4);
  CHECK(pod.inter_chip().bandwidth_Bps() == 50e9);
  CHECK(pod.inter_chip().latency_s() == 1e-6);  // our assumption, as on v2 to v4
  // The page's bisection, 1.6 TB/s: halving the 16x16 torus cuts 16 rows twice (wraparound), 32 links of
  // 50 GB/s one way; graph_figures counts both directions.
  const auto figures = graph_figures(pod);
  CHECK(figures.bisection_links == 32);
  CHECK(figures.bisection_Bps == Approx(2 * 1.6e12));
  // Only axes of 16 chips wrap on v5e (Austin et al., How to Scale Your Model, 2025): the 4x4 slice is a
  // mesh.
  const Topology slice = preset("tpu-v5e-16");
  CHECK(slice.chip_dims() == std::vector<int>{4, 4});
  CHECK(slice.kind() == "mesh");
  CHECK(slice.num_cores() == 16);
  CHECK(slice.inter_chip().bandwidth_Bps() == 50e9);
  // On-chip link, used only if a spec asks for cores=2: half of the 819 GB/s HBM, as assumed on v2 to v4.
  CHECK(slice.intra_chip().bandwidth_Bps() == 409.5e9);
}

TEST_CASE("TPU v6e: a 16x16 torus pod, a 4x4 slice without wraparound, one core per chip, 100 GB/s links") {
  // The v6e page: 256 chips in a 2D torus, one TensorCore, 4 ICI ports and 800 GB/s bidirectional per chip:
  // 800e9 / 4 / 2 = 100e9 B/s per link each way; bisection 3.2 TB/s = 32 links x 100 GB/s.
  const Topology pod = preset("tpu-v6e-256");
  CHECK(pod.chip_dims() == std::vector<int>{16, 16});
  CHECK(pod.kind() == "torus");
  CHECK(pod.num_cores() == 256);
  CHECK(links_per_chip(pod) == 4);
  CHECK(pod.inter_chip().bandwidth_Bps() == 100e9);
  const auto figures = graph_figures(pod);
  CHECK(figures.bisection_links == 32);
  CHECK(figures.bisection_Bps == Approx(2 * 3.2e12));
  const Topology slice = preset("tpu-v6e-16");
  CHECK(slice.kind() == "mesh");
  CHECK(slice.num_cores() == 16);
  CHECK(slice.inter_chip().bandwidth_Bps() == 100e9);
}

TEST_CASE("TPU v5p: 3D tori of whole cubes up to the 8960-chip pod, one megacore per chip, 100 GB/s links") {
  // The v5p page: a 3D torus, 1200 GB/s bidirectional ICI per chip; a 3D torus gives each chip 6 links, so
  // 1200e9 / 6 / 2 = 100e9 B/s per link each way. Slices of whole 4x4x4 cubes wrap on every axis.
  const Topology cube = preset("tpu-v5p-cube");
  CHECK(cube.chip_dims() == std::vector<int>{4, 4, 4});
  CHECK(cube.kind() == "torus");
  CHECK(chips(cube) == 64);
  CHECK(links_per_chip(cube) == 6);
  CHECK(cube.inter_chip().bandwidth_Bps() == 100e9);
  // The page counts 2 TensorCores per chip (128 cores in a 4x4x4); the preset has one device per chip, the
  // megacore JAX sees.
  CHECK(cube.cores_per_chip() == 1);
  CHECK(cube.num_cores() == 64);
  // The page's slice table: 8x8x8 = 512 chips; the largest slice 16x16x24 = 6144 chips (96 cubes).
  const Topology slice = preset("tpu-v5p-8x8x8");
  CHECK(slice.chip_dims() == std::vector<int>{8, 8, 8});
  CHECK(chips(slice) == 512);
  // The table's other whole-cube slices, by their chips: 4x8x8 = 256, 8x8x16 = 1024, 8x16x16 = 2048 and
  // 16x16x16 = 4096, each a torus of 100 GB/s links.
  const std::vector<std::pair<std::string, std::vector<int>>> table = {{"tpu-v5p-4x8x8", {4, 8, 8}},
                                                                       {"tpu-v5p-8x8x16", {8, 8, 16}},
                                                                       {"tpu-v5p-8x16x16", {8, 16, 16}},
                                                                       {"tpu-v5p-16x16x16", {16, 16, 16}}};
  const std::vector<int> table_chips = {256, 1024, 2048, 4096};
  for (std::size_t i = 0; i < table.size(); ++i) {
    const Topology shaped = preset(table[i].first);
    INFO(table[i].first);
    CHECK(shaped.chip_dims() == table[i].second);
    CHECK(chips(shaped) == table_chips[i]);
    CHECK(shaped.kind() == "torus");
    CHECK(shaped.inter_chip().bandwidth_Bps() == 100e9);
  }
  const Topology largest = preset("tpu-v5p-16x16x24");
  CHECK(largest.chip_dims() == std::vector<int>{16, 16, 24});
  CHECK(chips(largest) == 6144);
  CHECK(chips(largest) / 64 == 96);
  // The pod: the page's 8960 chips, in Austin et al.'s 16x20x28 (140 cubes).
  const Topology pod = preset("tpu-v5p-pod");
  CHECK(pod.chip_dims() == std::vector<int>{16, 20, 28});
  CHECK(chips(pod) == 8960);
  CHECK(pod.kind() == "torus");
  CHECK(pod.num_cores() == 8960);
  CHECK(pod.inter_chip().bandwidth_Bps() == 100e9);
}
