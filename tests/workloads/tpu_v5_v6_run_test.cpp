// The TPU v5e, v5p and v6e run presets run a training step on their pods with their generation's device, and
// the MFU is against that device's peak: model FLOPs / step time / (peak per core x cores), with the Cloud
// pages' per-chip bf16 rates (one core per chip on these presets).
#include <catch2/catch.hpp>

#include "workloads/config/preset_catalog.hpp"
#include "workloads/sweep/sweep_run.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

TEST_CASE("lm-s5 on a v5e pod, a v5p cube and a v6e pod: a step each, MFU against the device's own peak") {
  struct Row {
    const char* preset;
    const char* topology;
    const char* device;
    double peak_flops;  // per chip, the page's bf16 figure
    int cores;
  };
  const std::vector<Row> rows = {
      {"lm-s5-v5e", "tpu-v5e-256", "tpu-v5e-core", 197e12, 256},
      {"lm-s5-v5p", "tpu-v5p-cube", "tpu-v5p-core", 459e12, 64},
      {"lm-s5-v6e", "tpu-v6e-256", "tpu-v6e-core", 918e12, 256},
  };
  for (const auto& row : rows) {
    INFO(row.preset);
    const RunConfig config = load_preset(row.preset);
    CHECK(config.hardware.topology.name() == row.topology);
    CHECK(config.hardware.device.name() == row.device);
    CHECK(config.hardware.device.peak_flops() == row.peak_flops);
    CHECK(config.mesh.num_cores() == row.cores);
    const auto result = run_point(config);
    REQUIRE(result.error.empty());
    CHECK(result.fits);
    CHECK(result.step_time_s >= result.compute_s);
    CHECK(result.mfu ==
          Approx(result.model_flops_per_step / result.step_time_s / (row.peak_flops * row.cores)));
    CHECK(result.mfu > 0);
    CHECK(result.mfu < 1);
  }
}
