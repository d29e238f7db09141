// Multislice pods (topologies/multislice.hpp): the spec parser's valid forms and one clear line for each
// malformed one, the presets against the slices they are made of and the DCN figure worked by hand from
// Austin et al.'s 2.5e10 B/s per host, and the numbering (slice slowest, the "slice" axis) against a plain
// loop over coordinates.
#include "topologies/multislice.hpp"

#include <catch2/catch.hpp>
#include <random>

#include "topologies/chip_graph.hpp"
#include "topologies/group.hpp"
#include "topologies/presets.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::topo;
using tpusim::InputError;

TEST_CASE("multislice specs: a preset or a kind:dims slice, N copies, DCN keys after") {
  const Topology cubes = topology_from_spec("multislice:4xtpu-v5p-cube");
  CHECK(cubes.multislice());
  CHECK(cubes.slices() == 4);
  CHECK(cubes.chip_dims() == std::vector<int>{4, 4, 4});
  CHECK(cubes.num_chips() == 4 * 64);
  CHECK(cubes.chips_per_slice() == 64);
  CHECK(cubes.wraparound());
  CHECK(cubes.kind() == "multislice");
  CHECK(cubes.name() == "multislice:4xtpu-v5p-cube");
  CHECK(cubes.inter_chip().bandwidth_Bps() == preset("tpu-v5p-cube").inter_chip().bandwidth_Bps());
  // 2.5e10 B/s per host of 2x2x1 = 4 v5p chips.
  CHECK(cubes.dcn().bandwidth_Bps() == 2.5e10 / 4);
  CHECK(cubes.dcn().latency_s() == 10e-6);
  CHECK(cubes.shape() == "4 slices x 4x4x4 chips x 1 core");

  const Topology tori = topology_from_spec("multislice:2x(torus:8x8)");
  CHECK(tori.slices() == 2);
  CHECK(tori.num_chips() == 128);
  CHECK(tori.dcn().bandwidth_Bps() == 2.5e10 / 8);  // the 4x2 = 8-chip host of v5e and v6e

  const Topology keyed =
      topology_from_spec("multislice:3x(ring:8),cores=2,bw=100GB/s,dcn_bw=10GB/s,dcn_lat=20us");
  CHECK(keyed.slices() == 3);
  CHECK(keyed.cores_per_chip() == 2);
  CHECK(keyed.num_cores() == 48);
  CHECK(keyed.inter_chip().bandwidth_Bps() == 100e9);
  CHECK(keyed.dcn().bandwidth_Bps() == 10e9);
  CHECK(keyed.dcn().latency_s() == Approx(20e-6).epsilon(1e-15));

  // A single-slice spec is untouched.
  CHECK_FALSE(topology_from_spec("torus:8x8").multislice());
  CHECK(topology_from_spec("torus:8x8").kind() == "torus");
}

TEST_CASE("every malformed multislice spec is one line naming the spec and the problem") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"multislice:", "expected multislice:<N>x<preset>"},
      {"multislice:4", "expected multislice:<N>x<preset>"},
      {"multislice:x(torus:4x4)", "expected multislice:<N>x<preset>"},
      {"multislice:1xtpu-v5p-cube", "slice count '1' must be a whole number from 2"},
      {"multislice:0xtpu-v5p-cube", "slice count '0'"},
      {"multislice:ax(torus:4x4)", "slice count 'a'"},
      {"multislice:2x", "no slice after '2x'"},
      {"multislice:2x(torus:4x4", "opens a parenthesis it does not close"},
      {"multislice:2x(torus:4x4,cores=2)", "keys go after it, outside"},
      {"multislice:2x(tpu-v5p-cube)", "write a preset without them"},
      {"multislice:2xtorus:4x4", "goes in parentheses"},
      {"multislice:2x(multislice:2x(ring:4))", "a slice in parentheses is one kind:dims"},
      {"multislice:2xtpu-v9", "slice: unknown topology preset 'tpu-v9'"},
      {"multislice:2x(cube:4x4)", "slice: unknown kind 'cube'"},
      {"multislice:2x(torus:4x4),dcn_bw=fast", "dcn_bw:"},
      {"multislice:2x(torus:4x4),dcn_lat=-1us", "dcn_lat:"},
      {"multislice:2x(torus:4x4),dcn_bw=1GB/s,dcn_bw=2GB/s", "key 'dcn_bw' is given twice"},
      {"multislice:2x(torus:4x4),dcn_bw", "'dcn_bw' is not key=value"},
      {"multislice:2x(torus:4x4),", "trailing ','"},
      {"multislice:2x(torus:4x4),twist_x=y+1", "twists are not modelled"},
      {"multislice:2x(torus:4x4),frob=1", "unknown key 'frob'"},
      {"multislice:2xtpu-v4-4x4x8-twisted", "cannot be twisted"},
      {"multislice:65536x(torus:4x4)", "more than 65536 chips"},
  };
  for (const auto& [spec, problem] : cases) {
    INFO(spec);
    try {
      topology_from_spec(spec);
      FAIL("accepted");
    } catch (const InputError& error) {
      const std::string what = error.what();
      CHECK(what.rfind("topology '" + spec + "': ", 0) == 0);
      CHECK(what.find(problem) != std::string::npos);
      CHECK(what.find('\n') == std::string::npos);
    }
  }
  CHECK_THROWS_AS(topology_from_spec("multislice:2x(torus:4x4)").with_faults("link 0.0 x down"), InputError);
}

TEST_CASE("multislice presets: 2, 4 and 8 slices of tpu-v5e-256 and tpu-v5p-cube") {
  const std::vector<std::string> names = multislice_preset_names();
  REQUIRE(names.size() == 6);
  for (const auto& name : names) {
    INFO(name);
    const Topology pod = preset(name);
    const std::string slice_name = name.substr(0, name.rfind("-x"));
    const int slices = std::stoi(name.substr(name.rfind("-x") + 2));
    const Topology slice = preset(slice_name);
    CHECK(pod.name() == name);
    CHECK(pod.slices() == slices);
    CHECK(pod.chip_dims() == slice.chip_dims());
    CHECK(pod.num_chips() == slices * slice.num_chips());
    CHECK(pod.inter_chip().bandwidth_Bps() == slice.inter_chip().bandwidth_Bps());
    const int chips_per_host = slice_name == "tpu-v5p-cube" ? 4 : 8;
    CHECK(pod.dcn().bandwidth_Bps() == 2.5e10 / chips_per_host);
    CHECK(topology_from_spec(name).slices() == slices);
    CHECK(topology_from_spec(name).name() == name);
    CHECK(preset_description(name).find(std::to_string(pod.num_chips()) + " chips") != std::string::npos);
    // The name with keys after it is the spec it stands for.
    const Topology slower = topology_from_spec(name + ",dcn_bw=1GB/s");
    CHECK(slower.slices() == slices);
    CHECK(slower.dcn().bandwidth_Bps() == 1e9);
  }
  CHECK_THROWS_AS(preset("tpu-v5e-256-x3"), InputError);
}

TEST_CASE("multislice numbering: the slice is the slowest coordinate and the last physical axis") {
  std::mt19937 random(11);
  for (const char* spec :
       {"multislice:3x(torus:4x2),cores=2", "multislice:2x(ring:5)", "multislice:4x(mesh:2x3x2)"}) {
    INFO(spec);
    const Topology pod = topology_from_spec(spec);
    const auto axes = pod.axes();
    REQUIRE(axes.back().name == "slice");
    CHECK(axes.back().size == pod.slices());
    CHECK(axes.back().stride == pod.cores_per_chip() * pod.chips_per_slice());
    CHECK(pod.axis_index("slice") == static_cast<int>(axes.size()) - 1);
    for (int trial = 0; trial < 50; ++trial) {
      // A random core by its coordinates; its rank by the plain formula: core + cores * (x + kx * (y + ...)).
      CoreCoord coord;
      coord.core = std::uniform_int_distribution<int>(0, pod.cores_per_chip() - 1)(random);
      long expected = 0, weight = pod.cores_per_chip();
      for (const int size : pod.chip_dims()) {
        coord.chip.push_back(std::uniform_int_distribution<int>(0, size - 1)(random));
        expected += weight * coord.chip.back();
        weight *= size;
      }
      coord.chip.push_back(std::uniform_int_distribution<int>(0, pod.slices() - 1)(random));
      expected += weight * coord.chip.back() + coord.core;
      const Rank rank = rank_of(pod, coord);
      CHECK(rank == expected);
      CHECK(coord_of(pod, rank) == coord);
      CHECK(pod.slice_of_chip(chip_of(pod, rank)) == coord.chip.back());
    }
  }
  // Groups along the slice axis: one per core of a slice, its members a slice's stride apart.
  const Topology pod = topology_from_spec("multislice:3x(torus:4x2),cores=2");
  const auto groups = groups_along(pod, parse_group_axes(pod, "slice"));
  REQUIRE(groups.size() == 16);
  for (const auto& group : groups) {
    REQUIRE(group.size() == 3);
    CHECK(group.ranks[1] - group.ranks[0] == 16);
    CHECK(group.ranks[2] - group.ranks[1] == 16);
  }
  // On one slice there is no such axis.
  CHECK_THROWS_AS(topology_from_spec("torus:4x2").axis_index("slice"), InputError);
}

TEST_CASE("graph figures of a multislice pod: hops within a slice, the DCN as its bisection when weaker") {
  const Topology pod = topology_from_spec("multislice:4x(torus:4x4),dcn_bw=2GB/s");
  const GraphFigures slice = graph_figures(topology_from_spec("torus:4x4"));
  const GraphFigures figures = graph_figures(pod);
  CHECK(figures.chips == 64);
  CHECK(figures.links == 4 * slice.links);
  CHECK(figures.diameter_hops == slice.diameter_hops);
  CHECK(figures.average_hops == slice.average_hops);
  // Halving the pod between slices cuts 32 NICs of 2 GB/s each way; halving each 4x4 torus cuts 8 links of
  // 62 GB/s each way in each of the 4 slices.
  CHECK(figures.bisection_links == 32);
  CHECK(figures.bisection_Bps == 2 * 32 * 2e9);
  const GraphFigures fast = graph_figures(topology_from_spec("multislice:4x(torus:4x4),dcn_bw=1000GB/s"));
  CHECK(fast.bisection_links == 4 * slice.bisection_links);
  CHECK(fast.bisection_Bps == 4 * slice.bisection_Bps);
}
