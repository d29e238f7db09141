#include "workloads/sweep/sweep_run.hpp"

#include <stdexcept>

#include "topologies/support/child_process.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::workloads {

std::string point_summary_json(const RunReport& report) {
  const auto& timeline = report.timeline;
  return nlohmann::json{{"step_time_s", timeline.step_time_s},
                        {"compute_s", timeline.compute_s},
                        {"communication_s", timeline.comm_s},
                        {"exposed_communication_s", timeline.exposed_comm_s},
                        {"idle_s", timeline.idle_s},
                        {"model_flops_per_step", report.model_flops_per_step},
                        {"mfu", report.mfu},
                        {"parameters", report.parameters},
                        {"memory_per_core_bytes", report.memory.total_bytes},
                        {"hbm_per_core_bytes", report.memory.hbm_bytes},
                        {"fits", report.memory.fits()},
                        {"collective_calls", report.collectives.size()},
                        {"mesh_mapping", report.mesh_mapping},
                        {"uncalibrated_step_time_s", report.uncalibrated_step_time_s}}
      .dump();
}

PointResult parse_point_summary(const std::string& json_text) {
  return parse_point_summary(nlohmann::json::parse(json_text));
}

PointResult parse_point_summary(const nlohmann::json& json) {
  PointResult result;
  result.step_time_s = json.at("step_time_s").get<double>();
  result.compute_s = json.at("compute_s").get<double>();
  result.communication_s = json.at("communication_s").get<double>();
  result.exposed_communication_s = json.at("exposed_communication_s").get<double>();
  result.idle_s = json.at("idle_s").get<double>();
  result.model_flops_per_step = json.at("model_flops_per_step").get<double>();
  result.mfu = json.at("mfu").get<double>();
  result.parameters = json.at("parameters").get<std::int64_t>();
  result.memory_per_core_bytes = json.at("memory_per_core_bytes").get<std::uint64_t>();
  result.hbm_per_core_bytes = json.at("hbm_per_core_bytes").get<std::uint64_t>();
  result.fits = json.at("fits").get<bool>();
  result.collective_calls = json.at("collective_calls").get<int>();
  result.mesh_mapping = json.at("mesh_mapping").get<std::string>();
  return result;
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
