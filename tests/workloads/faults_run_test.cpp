// Faults in training runs (hardware.faults): a straggler slows every op of the step by its factor, and the
// shipped fault sweep runs, each link down costing time.
#include <catch2/catch.hpp>

#include "workloads/config/preset_catalog.hpp"
#include "workloads/sweep/sweep_catalog.hpp"
#include "workloads/sweep/sweep_run.hpp"

using namespace tpusim::workloads;

TEST_CASE("a straggler makes the step's compute slower by its factor") {
  // Each core waits for the straggler at every collective, so every op takes the straggler's time: with no
  // per-op overhead, compute is factor times the healthy compute (hand computation: op time scales as
  // 1/peak and 1/bandwidth).
  RunConfig config = load_preset("lm-s5");
  const auto healthy = run_point(config);
  config.hardware.topology = config.hardware.topology.with_faults("straggler:2.5:1.25");
  const auto slowed = run_point(config);
  REQUIRE(healthy.error.empty());
  REQUIRE(slowed.error.empty());
  CHECK(slowed.compute_s == Approx(1.25 * healthy.compute_s).epsilon(1e-9));
  CHECK(slowed.step_time_s > healthy.step_time_s);
  CHECK(slowed.mfu < healthy.mfu);
}

TEST_CASE("lm-s5-faults: every point runs and links down cost the step time") {
  const Sweep sweep = load_sweep_preset("lm-s5-faults");
  REQUIRE(sweep.points.size() == 4);
  std::vector<double> step_s;
  for (const auto& point : sweep.points) {
    const auto result = run_point(point.config);
    INFO(point.config.hardware.topology.faults().text() << ": " << result.error);
    REQUIRE(result.error.empty());
    step_s.push_back(result.step_time_s);
  }
  CHECK(sweep.points[0].config.hardware.topology.faults().empty());
  CHECK(sweep.points[3].config.hardware.topology.faults().down_links().size() == 3);
  for (std::size_t i = 1; i < step_s.size(); ++i) CHECK(step_s[i] > step_s[0]);
}
