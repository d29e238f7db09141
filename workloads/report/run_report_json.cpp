#include "sim/simulator.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "workloads/model_formulas.hpp"
#include "workloads/report/result_files.hpp"

namespace tpusim::workloads {
namespace {

nlohmann::json resolved_config(const RunConfig& c) {
  const auto& m = c.model;
  const auto& t = c.hardware.topology;
  const auto& device = c.hardware.device;
  nlohmann::json model = {{"kind", to_string(m.kind)},
                          {"d_model", m.d_model},
                          {"d_ff", m.d_ff},
                          {"batch", m.batch},
                          {"activation_dtype", to_string(m.activation_dtype)}};
  if (m.kind == ModelKind::encoder_decoder) {
    model["encoder_layers"] = m.layers;
    model["decoder_layers"] = m.decoder_layers;
  } else {
    model["layers"] = m.layers;
  }
  if (m.kind != ModelKind::mlp) {
    model["heads"] = m.heads;
    model["d_kv"] = m.d_kv;
    model["vocab"] = m.vocab;
    model["length"] = m.length;
  }
  if (m.kind == ModelKind::moe_transformer) {
    model["experts"] = m.experts;
    model["capacity_factor"] = m.capacity_factor;
  }
  return {{"name", c.name},
          {"description", c.description},
          {"source", c.source},
          {"hardware",
           {{"topology", t.name()},
            {"chip_dims", t.chip_dims()},
            {"cores_per_chip", t.cores_per_chip()},
            {"cores", t.num_cores()},
            {"inter_chip_bandwidth_Bps", t.inter_chip().bandwidth_Bps()},
            {"inter_chip_latency_s", t.inter_chip().latency_s()},
            {"intra_chip_bandwidth_Bps", t.intra_chip().bandwidth_Bps()},
            {"intra_chip_latency_s", t.intra_chip().latency_s()},
            {"device", device.name()},
            {"peak_flops_per_core", device.peak_flops()},
            {"hbm_bytes_per_core", device.hbm_bytes()},
            {"hbm_bandwidth_Bps_per_core", device.hbm_bandwidth_Bps()},
            {"collectives", c.hardware.collective_algorithm_by_axis}}},
          {"mesh",
           {{"shape", c.mesh.shape_text()},
            {"mapping", c.mesh.mapping.to_string()},
            {"layout", c.mesh.layout_text()}}},
          {"model", model},
          {"training",
           {{"optimizer", to_string(c.training.optimizer)},
            {"learning_rate", c.training.learning_rate},
            {"numerics", to_string(c.training.numerics)},
            {"steps", c.training.steps},
            {"seed", c.training.seed},
            {"output", c.training.output_dir}}}};
}

}  // namespace

nlohmann::json run_report_json(const RunConfig& config, const RunReport& r) {
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
  return {{"context",
           {{"tpusim_version", TPUSIM_VERSION},
            {"simgrid_version", sim::simgrid_version()},
            {"format", "tpusim.run_summary.v1"}}},
          {"config", resolved_config(config)},
          {"config_yaml", config.yaml_text},
          {"mesh_mapping", r.mesh_mapping},
          {"parameters", r.parameters},
          {"paper_parameters", paper_parameter_count(config.model)},
          {"step_time",
           {{"step_time_s", timeline.step_time_s},
            {"compute_s", timeline.compute_s},
            {"communication_s", timeline.comm_s},
            {"exposed_communication_s", timeline.exposed_comm_s},
            {"idle_s", r.idle_s}}},
          {"flops",
           {{"model_flops_per_step", r.model_flops_per_step},
            {"counted_flops_per_core", r.counted_flops_per_core},
            {"counted_matmul_flops_per_core", r.counted.matmul_flops_per_core},
            {"counted_other_flops_per_core", r.counted.other_flops_per_core},
            {"achieved_flops_per_s", r.achieved_flops},
            {"peak_flops_per_s", peak},
            {"mfu", r.mfu}}},
          {"memory_per_core",
           {{"parameter_bytes", mem.parameter_bytes},
            {"gradient_bytes", mem.gradient_bytes},
            {"optimizer_state_bytes", mem.optimizer_state_bytes},
            {"activation_bytes", mem.activation_bytes},
            {"total_bytes", mem.total_bytes},
            {"hbm_bytes", mem.hbm_bytes},
            {"fits", mem.fits()}}},
          {"steps", steps},
          {"collectives", collectives},
          {"collective_calls_per_step", r.collectives.size()},
          {"wall_s", r.wall_s}};
}

}  // namespace tpusim::workloads
