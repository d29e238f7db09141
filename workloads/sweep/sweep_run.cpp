#include "workloads/sweep/sweep_run.hpp"

#include <stdexcept>

#include "topologies/support/child_process.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::workloads {

const RecordFields<PointResult>& point_summary_fields() {
  static const RecordFields<PointResult> fields = {
      {"step_time_s", &PointResult::step_time_s},
      {"compute_s", &PointResult::compute_s},
      {"communication_s", &PointResult::communication_s},
      {"exposed_communication_s", &PointResult::exposed_communication_s},
      {"idle_s", &PointResult::idle_s},
      {"model_flops_per_step", &PointResult::model_flops_per_step},
      {"mfu", &PointResult::mfu},
      {"parameters", &PointResult::parameters},
      {"memory_per_core_bytes", &PointResult::memory_per_core_bytes},
      {"hbm_per_core_bytes", &PointResult::hbm_per_core_bytes},
      {"fits", &PointResult::fits},
      {"collective_calls", &PointResult::collective_calls},
      {"mesh_mapping", &PointResult::mesh_mapping},
      {"uncalibrated_step_time_s", &PointResult::uncalibrated_step_time_s}};
  return fields;
}

PointResult point_summary(const RunReport& report) {
  PointResult result;
  const auto& timeline = report.timeline;
  result.step_time_s = timeline.step_time_s;
  result.compute_s = timeline.compute_s;
  result.communication_s = timeline.comm_s;
  result.exposed_communication_s = timeline.exposed_comm_s;
  result.idle_s = timeline.idle_s;
  result.model_flops_per_step = report.model_flops_per_step;
  result.mfu = report.mfu;
  result.parameters = report.parameters;
  result.memory_per_core_bytes = report.memory.total_bytes;
  result.hbm_per_core_bytes = report.memory.hbm_bytes;
  result.fits = report.memory.fits();
  result.collective_calls = static_cast<int>(report.collectives.size());
  result.mesh_mapping = report.mesh_mapping;
  result.uncalibrated_step_time_s = report.uncalibrated_step_time_s;
  return result;
}

std::string point_summary_json(const RunReport& report) {
  return record_json(point_summary(report), point_summary_fields()).dump();
}

PointResult parse_point_summary(const std::string& json_text) {
  return parse_point_summary(nlohmann::json::parse(json_text));
}

PointResult parse_point_summary(const nlohmann::json& json) {
  return record_from_json(json, point_summary_fields());
}

PointResult run_point(const RunConfig& config) {
  const ChildResult child = run_in_child([&] { return point_summary_json(run_training(config)); });
  PointResult result = parse_point_summary(child.output);
  result.wall_s = child.wall_s;
  result.peak_rss_mib = child.peak_rss_mib;
  return result;
}

std::vector<PointResult> run_sweep(
    const Sweep& sweep, const std::function<void(const SweepPoint&, const PointResult&)>& on_point) {
  std::vector<PointResult> results;
  for (const auto& point : sweep.points) {
    PointResult result;
    try {
      result = run_point(point.config);
    } catch (const InputError& error) {
      result.error = error.what();
      result.input_error = true;
    } catch (const std::exception& error) {
      result.error = error.what();
    }
    results.push_back(result);
    if (on_point) on_point(point, result);
  }
  return results;
}

}  // namespace tpusim::workloads
