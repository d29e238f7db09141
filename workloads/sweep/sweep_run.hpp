#pragma once
// A training sweep's point as its child runs it (SimGrid allows one simulation per process): exactly as
// `tpusim run` would (run_training), sending back a compact JSON summary; a point that does not fit its HBM
// is a result (fits = false), not a failure. `tpusim sweep` runs points N at a time with records
// (study_runner.hpp); run_sweep here is the plain loop, one point after another, for tests and libraries.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/report/record_fields.hpp"
#include "workloads/sweep/sweep_spec.hpp"
#include "workloads/training_run.hpp"

namespace tpusim::workloads {

struct PointResult {
  // Simulated, one step (the last of the config's steps).
  double step_time_s = 0;
  double compute_s = 0;
  double communication_s = 0;
  double exposed_communication_s = 0;
  double idle_s = 0;
  double model_flops_per_step = 0;
  double mfu = 0;
  std::int64_t parameters = 0;
  std::uint64_t memory_per_core_bytes = 0;  // MemoryReport::total_bytes
  std::uint64_t hbm_per_core_bytes = 0;
  bool fits = false;
  int collective_calls = 0;  // per step
  std::string mesh_mapping;
  double uncalibrated_step_time_s = 0;  // before hardware.calibration (the step time without one)
  // Measured on this machine by the parent: fork to exit of the child.
  double wall_s = 0;
  double peak_rss_mib = 0;
  // Non-empty when the point could not run: a config problem only the engine finds (an illegal layout),
  // input_error = true, or a failure of the child.
  std::string error;
  bool input_error = false;

  double exposed_communication_fraction() const {
    return step_time_s > 0 ? exposed_communication_s / step_time_s : 0;
  }
};

// What a child sends back, as one table: the JSON of point_summary_json and of parse_point_summary.
const RecordFields<PointResult>& point_summary_fields();

// The child's side: the compact JSON of a run, and back.
PointResult point_summary(const RunReport& report);
std::string point_summary_json(const RunReport& report);
PointResult parse_point_summary(const std::string& json_text);
PointResult parse_point_summary(const nlohmann::json& json);

// Runs one config in a child process. InputError and other failures of the child propagate.
PointResult run_point(const RunConfig& config);

// Every point in order; a point that fails is recorded (PointResult::error) and the sweep goes on.
// on_point is called after each point, for progress.
std::vector<PointResult> run_sweep(
    const Sweep& sweep, const std::function<void(const SweepPoint&, const PointResult&)>& on_point = {});

}  // namespace tpusim::workloads
