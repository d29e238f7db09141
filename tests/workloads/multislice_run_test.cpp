// The 4.9B LM on two v5p cubes joined by the DCN, data parallel across the slices (lm-s5-v5p's model with the
// batch axis on z and the slices): the step runs; every gradient sum over the batch axis is a hierarchical
// allreduce whose time is its closed form worked here; and the step costs more than the same model per cube
// on one cube by no more than those sums' DCN phases (what compute does not hide of them).
#include <catch2/catch.hpp>
#include <sstream>

#include "mesh_tf/device_model.hpp"
#include "topologies/support/child_process.hpp"
#include "workloads/config/config_layers.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

// A config over its base (`base: lm-s5-v5p`), as tpusim run reads one.
RunConfig multislice_layered_config(const std::string& yaml) {
  const LayeredConfig layered = layer_config(yaml, "run.yaml", {});
  return parse_run_config(layered.root, layered.text);
}

// 128 chips: the model axis on the x and y rings of a z plane, the batch axis on z and the slices (8 = 4 x
// 2), batch 256 so that each batch slice keeps lm-s5-v5p's 32 sequences.
const char* const kMultisliceRun = R"(
base: lm-s5-v5p
hardware:
  topology: tpu-v5p-cube-x2
  collectives: {batch: hierarchical}
mesh:
  shape: batch:8;model:16
  mapping: model=x+y;batch=z+slice
model:
  batch: 256
)";

struct MultisliceRunFigures {
  double step_s = 0, compute_s = 0, exposed_s = 0;
  double batch_sums_s = 0;  // every batch-axis allreduce of the step, simulated
  double hand_sums_s = 0;   // the same by the closed form below
  double dcn_s = 0;         // their DCN phases alone
  std::string mapping;
};

// Runs a config in a child (one simulator per process) and sums its batch-axis allreduces. The hierarchical
// allreduce of S bytes over m = 4 chips of a slice (a ring of 4 along z: a = 1 us, B = 100 GB/s) and N = 2
// slices (a_dcn = 10 us, B_dcn = 2.5e10 / 4 B/s): 2(m-1)a + (m-1)/m S/B + 2(N-1)a_dcn + 2(N-1)/N (S/m)/B_dcn.
MultisliceRunFigures multislice_run_figures(const std::string& yaml) {
  const auto child = run_in_child([&] {
    const RunConfig config = multislice_layered_config(yaml);
    const RunReport report = run_training(config);
    std::ostringstream out;
    out.precision(17);
    double simulated = 0, hand = 0, dcn = 0;
    for (const auto& group : report.collective_groups) {
      if (group.kind != "allreduce" || group.mesh_axes != "batch") continue;
      const double s = static_cast<double>(group.bytes_per_core);
      const double across = 2 * 1 * 10e-6 + 2.0 * 1 / 2 * (s / 4) / (2.5e10 / 4);
      simulated += group.time_s;
      hand += group.count * (2 * 3 * 1e-6 + 3.0 / 4 * s / 100e9 + across);
      dcn += group.count * across;
    }
    const auto& timeline = report.timeline;
    out << report.steps.back().step_time_s << " " << timeline.compute_s << " " << timeline.exposed_comm_s
        << " " << simulated << " " << hand << " " << dcn << " " << report.mesh_mapping;
    return out.str();
  });
  std::istringstream in(child.output);
  MultisliceRunFigures figures;
  in >> figures.step_s >> figures.compute_s >> figures.exposed_s >> figures.batch_sums_s >>
      figures.hand_sums_s >> figures.dcn_s;
  std::getline(in, figures.mapping);
  return figures;
}

}  // namespace

TEST_CASE("lm-s5 on two v5p cubes, data across slices: hierarchical gradient sums at their closed form") {
  const RunConfig config = multislice_layered_config(kMultisliceRun);
  REQUIRE(config.hardware.topology.slices() == 2);
  REQUIRE(config.mesh.num_cores() == 128);
  const MultisliceRunFigures across = multislice_run_figures(kMultisliceRun);
  const MultisliceRunFigures one_cube = multislice_run_figures("base: lm-s5-v5p\n");
  INFO(across.mapping);
  CHECK(across.mapping.find("batch = z+slice") != std::string::npos);
  CHECK(across.batch_sums_s > 0);
  // Within 1e-7: the engine splits a sum's elements in whole elements, the formula evenly.
  CHECK(across.batch_sums_s == Approx(across.hand_sums_s).epsilon(1e-7));
  // The same work per core as on one cube (lm-s5-v5p: batch 4 x model 16, 32 sequences per batch slice).
  CHECK(across.compute_s == Approx(one_cube.compute_s).epsilon(1e-12));
  // What the DCN adds to the step is exposed communication, and at most the DCN phases of the sums.
  const double extra_s = across.step_s - one_cube.step_s;
  CHECK(extra_s > 0);
  CHECK(extra_s <= across.dcn_s * (1 + 1e-9));
  CHECK(across.exposed_s - one_cube.exposed_s == Approx(extra_s).epsilon(1e-9));
}

TEST_CASE("a multislice pod's default device is its slice's chip") {
  CHECK(mtf::DeviceModel::for_topology("tpu-v5p-cube-x4").name() == "tpu-v5p-core");
  CHECK(mtf::DeviceModel::for_topology("multislice:2xtpu-v5e-256").name() == "tpu-v5e-core");
  CHECK(mtf::DeviceModel::for_topology("multislice:2x(torus:4x4)").name() == "tpu-v2-core");
}
