#include "topologies/support/did_you_mean.hpp"
#include "workloads/config/resolved_config.hpp"
#include "workloads/models/model_formulas.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/report/result_files.hpp"
#include "workloads/report/step_explanation.hpp"

namespace tpusim::workloads {

nlohmann::json run_report_json(const RunConfig& config, const RunReport& r, nlohmann::json inputs) {
  const auto& timeline = r.timeline;
  const double peak = config.hardware.device.peak_flops() * config.mesh.num_cores();
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& step : r.steps) {
    steps.push_back({{"step", step.step},
                     {"loss", step.loss ? nlohmann::json(*step.loss) : nlohmann::json(nullptr)},
                     {"step_time_s", step.step_time_s}});
  }
  nlohmann::json collectives = nlohmann::json::array();
  for (const auto& g : r.collective_groups) {
    collectives.push_back({{"kind", g.kind},
                           {"mesh_axes", g.mesh_axes},
                           {"reason", g.reason},
                           {"group_size", g.group_size},
                           {"calls", g.count},
                           {"bytes_per_core_per_call", g.bytes_per_core},
                           {"time_s", g.time_s},
                           {"busbw_Bps", g.busbw_Bps}});
  }
  const auto& mem = r.memory;
  nlohmann::json summary = {{"config", resolved_config(config)},
                            {"config_yaml", config.yaml_text},
                            {"mesh_mapping", r.mesh_mapping},
                            {"parameters", r.parameters},
                            {"paper_parameters", paper_parameter_count(config.model)},
                            {"calibration",
                             r.calibration.empty()
                                 ? nlohmann::json(nullptr)
                                 : nlohmann::json{{"profile", r.calibration},
                                                  {"uncalibrated_step_time_s", r.uncalibrated_step_time_s}}},
                            {"step_time",
                             {{"step_time_s", timeline.step_time_s},
                              {"compute_s", timeline.compute_s},
                              {"communication_s", timeline.comm_s},
                              {"exposed_communication_s", timeline.exposed_comm_s},
                              {"idle_s", timeline.idle_s}}},
                            {"explain",
                             explanation_json(explain_step(timeline, config.hardware.device.peak_flops()))},
                            {"flops",
                             {{"model_flops_per_step", r.model_flops_per_step},
                              {"counted_flops_per_core", r.counted_flops_per_core},
                              {"counted_matmul_flops_per_core", r.counted.matmul_flops_per_core},
                              {"counted_other_flops_per_core", r.counted.other_flops_per_core},
                              {"achieved_flops_per_s", r.achieved_flops},
                              {"flops_per_s_per_core", r.flops_per_s_per_core},
                              {"peak_flops_per_s", peak},
                              {"mfu", r.mfu}}},
                            {"throughput",
                             {{"tokens_per_step", r.tokens_per_step},
                              {"tokens_per_s", r.tokens_per_s},
                              {"examples_per_s", r.examples_per_s},
                              {"example_unit", r.example_unit}}},
                            {"memory_per_core",
                             {{"parameter_bytes", mem.parameter_bytes},
                              {"gradient_bytes", mem.gradient_bytes},
                              {"optimizer_state_bytes", mem.optimizer_state_bytes},
                              {"activation_bytes", mem.activation_bytes},
                              {"sum_bytes", mem.sum_bytes},
                              {"total_bytes", mem.total_bytes},
                              {"hbm_bytes", mem.hbm_bytes},
                              {"rematerialized_values", mem.rematerialization.values},
                              {"recompute_s", mem.rematerialization.recompute_s},
                              {"fits", mem.fits()}}},
                            {"steps", steps},
                            {"collectives", collectives},
                            {"collective_calls_per_step", r.collectives.size()},
                            {"wall_s", r.wall_s}};
  if (r.pipeline) summary["pipeline"] = pipeline_report_json(*r.pipeline);
  if (r.healthy_step_time_s > 0) {
    summary["faults"] = {{"faults", config.hardware.topology.faults().text()},
                         {"healthy_step_time_s", r.healthy_step_time_s},
                         {"slowdown", timeline.step_time_s / r.healthy_step_time_s}};
  }
  return with_report_context(std::move(summary), format::kRunSummary, "run", std::move(inputs));
}

}  // namespace tpusim::workloads
