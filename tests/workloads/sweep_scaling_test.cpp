// The shipped scaling study (workloads/sweeps/lm-scaling.yaml): the LM on TPU v2 slices of 8 to 512 cores,
// data splitting against model splitting, with weak scaling; every point as computed by hand, and its first
// points run.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "workloads/config/preset_catalog.hpp"
#include "workloads/config/resolved_config.hpp"
#include "workloads/sweep/sweep_catalog.hpp"
#include "workloads/sweep/sweep_run.hpp"

using namespace tpusim::workloads;

namespace {

struct Expected {
  std::string topology;
  int cores;
  std::string mesh;
  std::int64_t batch, d_ff, heads;
};

}  // namespace

TEST_CASE("lm-scaling: data splitting grows the batch, model splitting grows d_ff and heads") {
  const Sweep sweep = load_sweep_preset("lm-scaling");
  // 16 sequences per batch processor; d_ff 8192 and 8 heads per model processor; model = core+x, batch = y.
  const std::vector<Expected> expected = {
      {"torus:2x2,cores=2", 8, "batch:8;model:1", 128, 8192, 8},
      {"tpu-v2-32", 32, "batch:32;model:1", 512, 8192, 8},
      {"tpu-v2-128", 128, "batch:128;model:1", 2048, 8192, 8},
      {"torus:16x8,cores=2", 256, "batch:256;model:1", 4096, 8192, 8},
      {"tpu-v2-pod", 512, "batch:512;model:1", 8192, 8192, 8},
      {"torus:2x2,cores=2", 8, "batch:2;model:4", 32, 32768, 32},
      {"tpu-v2-32", 32, "batch:4;model:8", 64, 65536, 64},
      {"tpu-v2-128", 128, "batch:8;model:16", 128, 131072, 128},
      {"torus:16x8,cores=2", 256, "batch:8;model:32", 128, 262144, 256},
      {"tpu-v2-pod", 512, "batch:16;model:32", 256, 262144, 256},
  };
  REQUIRE(sweep.points.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const RunConfig& c = sweep.points[i].config;
    INFO(i << ": " << sweep.points[i].describe(sweep.axes));
    CHECK(c.hardware.topology.name() == expected[i].topology);
    CHECK(c.hardware.topology.num_cores() == expected[i].cores);
    CHECK(c.mesh.shape_text() == expected[i].mesh);
    CHECK(c.model.batch == expected[i].batch);
    CHECK(c.model.d_ff == expected[i].d_ff);
    CHECK(c.model.heads == expected[i].heads);
    CHECK(c.mesh.layout_text() == "batch:batch;vocab:model;d_ff:model;heads:model");
  }
  // Model splitting on the pod is the paper's largest LM.
  const auto pod = resolved_config(sweep.points[9].config);
  const auto lm_s5 = resolved_config(load_preset("lm-s5"));
  CHECK(pod["model"] == lm_s5["model"]);
  CHECK(pod["hardware"] == lm_s5["hardware"]);
  CHECK(pod["mesh"]["shape"] == lm_s5["mesh"]["shape"]);
  CHECK(pod["mesh"]["layout"] == lm_s5["mesh"]["layout"]);
}

TEST_CASE("lm-scaling: its first points run, and data splitting's work grows with the batch") {
  const Sweep sweep = load_sweep_preset("lm-scaling");
  std::vector<PointResult> results;
  for (int i = 0; i < 2; ++i) {
    results.push_back(run_point(sweep.points[i].config));
    INFO(i << ": " << results.back().error);
    REQUIRE(results.back().error.empty());
    CHECK(results.back().fits);
    CHECK(results.back().step_time_s > 0);
  }
  // The same model on four times the cores with four times the batch: four times the FLOPs.
  CHECK(results[1].model_flops_per_step == Approx(4 * results[0].model_flops_per_step).epsilon(1e-12));
  CHECK(results[1].parameters == results[0].parameters);
}
