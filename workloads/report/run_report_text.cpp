#include <fmt/format.h>

#include "topologies/support/units.hpp"
#include "workloads/models/model_formulas.hpp"
#include "workloads/models/model_kinds.hpp"
#include "workloads/report/result_files.hpp"

namespace tpusim::workloads {
namespace {

std::string percent_of(double part, double whole) {
  return whole > 0 ? fmt::format("{:5.1f}%", 100 * part / whole) : "    -";
}

// "mapping rings: model = core+x, batch = y", "mapping linear: processor i is rank i, ...".
std::string mapping_text(const mtf::MappingSpec& spec, const std::string& note) {
  switch (spec.kind()) {
    case mtf::MappingSpec::Kind::rings:
      return "mapping rings: " + note;
    case mtf::MappingSpec::Kind::linear:
      return "mapping " + note;  // the note starts with "linear:"
    case mtf::MappingSpec::Kind::axes:
      return "mapping as configured: " + note;
  }
  return note;
}

}  // namespace

void print_run_report(std::ostream& out, const RunConfig& c, const RunReport& r) {
  const auto& t = r.timeline;
  const auto& device = c.hardware.device;
  const int cores = c.mesh.num_cores();
  out << fmt::format("tpusim run {}{}\n", c.name, c.description.empty() ? "" : ": " + c.description);
  out << fmt::format("  config      {}\n", c.source);
  const std::string parameters = r.parameters >= 100000000 ? fmt::format("{:.3f}B", r.parameters / 1e9)
                                                           : fmt::format("{}", r.parameters);
  out << fmt::format("  model       {} with {} parameters: {}\n", to_string(c.model.kind), parameters,
                     describe_model(c.model));
  out << fmt::format("  hardware    {}: {} = {} cores; {} {:.1f} TFLOP/s, {} HBM at {} per core\n",
                     c.hardware.topology.name(), c.hardware.topology.shape(), c.hardware.topology.num_cores(),
                     device.name(), device.peak_flops() / 1e12, format_bytes(double(device.hbm_bytes())),
                     format_bandwidth(device.hbm_bandwidth_Bps()));
  out << fmt::format("  mesh        {} ({}), layout {}\n", c.mesh.shape_text(),
                     mapping_text(c.mesh.mapping, r.mesh_mapping), c.mesh.layout_text());
  out << fmt::format("  training    {}, {} numerics, {} step{}\n\n", to_string(c.training.optimizer),
                     to_string(c.training.numerics), c.training.steps, c.training.steps == 1 ? "" : "s");

  out << fmt::format("step time (simulated)   {:>12}\n", format_duration(t.step_time_s));
  if (!r.calibration.empty()) {
    out << fmt::format("  calibrated with {}; the mechanisms alone {} ({:+.1f}%)\n", r.calibration,
                       format_duration(r.uncalibrated_step_time_s),
                       100 * (r.uncalibrated_step_time_s / t.step_time_s - 1));
  }
  if (r.healthy_step_time_s > 0) {
    out << fmt::format("  faults                {}; on the healthy pod {}, {:.3f}x slower here\n",
                       c.hardware.topology.faults().text(), format_duration(r.healthy_step_time_s),
                       t.step_time_s / r.healthy_step_time_s);
  }
  out << fmt::format("  compute               {:>12}  {}\n", format_duration(t.compute_s),
                     percent_of(t.compute_s, t.step_time_s));
  out << fmt::format("  exposed communication {:>12}  {}\n", format_duration(t.exposed_comm_s),
                     percent_of(t.exposed_comm_s, t.step_time_s));
  out << fmt::format("  idle                  {:>12}  {}\n", format_duration(t.idle_s),
                     percent_of(t.idle_s, t.step_time_s));
  out << fmt::format("  communication (busy)  {:>12}  {} overlapped with compute\n",
                     format_duration(t.comm_s), format_duration(std::max(0.0, t.comm_s - t.exposed_comm_s)));
  out << fmt::format("FLOPs per step          {:.4g} model (matmuls, closed form)\n", r.model_flops_per_step);
  out << fmt::format("  counted per core      {:.4g} matmul + {:.4g} other\n",
                     r.counted.matmul_flops_per_core, r.counted.other_flops_per_core);
  out << fmt::format("achieved                {:.4g} TFLOP/s of {:.4g} TFLOP/s peak: MFU {:.1f}%\n",
                     r.achieved_flops / 1e12, device.peak_flops() * cores / 1e12, 100 * r.mfu);
  out << fmt::format("  per core              {:.4g} TFLOP/s\n", r.flops_per_s_per_core / 1e12);
  // Tokens per second compare weak and strong scaling; an MLP example is one token, so it says examples.
  if (r.tokens_per_s == r.examples_per_s) {
    out << fmt::format("throughput              {:.4g} {}/s\n\n", r.examples_per_s, r.example_unit);
  } else {
    out << fmt::format("throughput              {:.4g} tokens/s, {:.4g} {}/s\n\n", r.tokens_per_s,
                       r.examples_per_s, r.example_unit);
  }

  const auto& mem = r.memory;
  out << fmt::format("memory per core         {:>12}  of HBM {}\n", "", format_bytes(double(mem.hbm_bytes)));
  out << fmt::format("  parameters            {:>12}\n", format_bytes(double(mem.parameter_bytes)));
  out << fmt::format("  gradients             {:>12}\n", format_bytes(double(mem.gradient_bytes)));
  out << fmt::format("  optimizer state       {:>12}\n", format_bytes(double(mem.optimizer_state_bytes)));
  out << fmt::format("  activations (kept)    {:>12}\n", format_bytes(double(mem.activation_bytes)));
  out << fmt::format("  all of these          {:>12}  (held at once only in the worst case)\n",
                     format_bytes(double(mem.sum_bytes)));
  if (mem.rematerialization.values > 0) {
    out << fmt::format("  rematerialized        {:>12}  values computed again, {} of recomputation\n",
                       mem.rematerialization.values, format_duration(mem.rematerialization.recompute_s));
  }
  if (mem.fits()) {
    out << fmt::format("  total (peak live)     {:>12}  fits ({:.1f}% of HBM)\n\n",
                       format_bytes(double(mem.total_bytes)),
                       100.0 * double(mem.total_bytes) / double(mem.hbm_bytes));
  } else {
    out << fmt::format(
        "  total (peak live)     {:>12}  DOES NOT FIT: {} more than the {} HBM of a {} core\n\n",
        format_bytes(double(mem.total_bytes)), format_bytes(double(mem.total_bytes - mem.hbm_bytes)),
        format_bytes(double(mem.hbm_bytes)), device.name());
  }

  if (r.pipeline) out << pipeline_report_text(*r.pipeline);
  out << fmt::format("collectives per step: {} calls; by total time:\n", r.collectives.size());
  out << fmt::format("  {:<15} {:<12} {:<14} {:>5} {:>6} {:>12} {:>12} {:>12}\n", "kind", "mesh axes",
                     "reason", "group", "calls", "bytes/call", "time", "busbw");
  const std::size_t shown = std::min<std::size_t>(r.collective_groups.size(), 12);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& g = r.collective_groups[i];
    out << fmt::format("  {:<15} {:<12} {:<14} {:>5} {:>6} {:>12} {:>12} {:>12}\n", g.kind, g.mesh_axes,
                       g.reason, g.group_size, g.count, format_bytes(double(g.bytes_per_core)),
                       format_duration(g.time_s), format_bandwidth(g.busbw_Bps));
  }
  if (r.collective_groups.size() > shown) {
    // The CSV has one row per call, not per group.
    out << fmt::format("  ... {} more groups; collectives.csv lists every call\n",
                       r.collective_groups.size() - shown);
  }
  bool any_loss = false;
  for (const auto& step : r.steps) any_loss = any_loss || step.loss.has_value();
  if (any_loss) {
    out << "\nloss per step:";
    for (const auto& step : r.steps) out << fmt::format(" {:.6f}", *step.loss);
    out << "\n";
  }
  out << fmt::format("\nwall time {:.2f} s (building, lowering and simulating on this machine)\n", r.wall_s);
}

}  // namespace tpusim::workloads
