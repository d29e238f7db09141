#include "mesh_tf/fusion.hpp"

#include <algorithm>

#include "topologies/support/check.hpp"

namespace tpusim::mtf {

const NameTable<FusionPolicy>& fusion_policies() {
  static const NameTable<FusionPolicy> table("fusion policy",
                                             {{"xla", FusionPolicy::xla}, {"none", FusionPolicy::none}});
  return table;
}

void fuse_elementwise(Program& program, const DeviceModel& device, const std::vector<int>& kept,
                      FusionPolicy policy) {
  if (policy == FusionPolicy::none) return;
  const int num_values = static_cast<int>(program.values.size());
  // Who reads each value: the number of reading steps (a step reading it twice counts once), and the last
  // reader, the only one where there is exactly one.
  std::vector<int> readers(num_values, 0), reader(num_values, -1);
  for (int i = 0; i < static_cast<int>(program.steps.size()); ++i) {
    for (const int v : program.steps[i].inputs) {
      if (reader[v] == i) continue;
      ++readers[v];
      reader[v] = i;
    }
  }
  std::vector<bool> must_store(num_values, false);
  for (const int v : kept) must_store[v] = true;

  std::vector<double> saved_bytes(program.steps.size(), 0.0);
  std::vector<bool> fused_away(program.steps.size(), false);  // its output stays on chip
  for (int i = 0; i < static_cast<int>(program.steps.size()); ++i) {
    const Step& producer = program.steps[i];
    if (producer.is_comm || producer.fusion != FusionRole::elementwise) continue;
    const int v = producer.output;
    if (must_store[v] || readers[v] != 1) continue;
    const int c = reader[v];
    const Step& consumer = program.steps[c];
    if (consumer.is_comm || consumer.fusion == FusionRole::none) continue;
    TPUSIM_CHECK(c > i);
    const double bytes = static_cast<double>(program.values[v].slice_bytes());
    const auto reads = std::count(consumer.inputs.begin(), consumer.inputs.end(), v);
    saved_bytes[i] += bytes;
    saved_bytes[c] += bytes * static_cast<double>(reads);
    fused_away[i] = true;
  }
  for (int i = 0; i < static_cast<int>(program.steps.size()); ++i) {
    if (saved_bytes[i] == 0 && !fused_away[i]) continue;
    Step& step = program.steps[i];
    step.hbm_bytes -= saved_bytes[i];
    TPUSIM_CHECK(step.hbm_bytes >= 0);
    OpTime time = device.op_time(step.flops, step.hbm_bytes, step.transcendentals);
    if (fused_away[i]) {  // not the last step of its fusion: the fusion's overhead is its last step's
      time.time_s -= time.overhead_s;
      time.overhead_s = 0;
    }
    step.time_s = time.time_s;
    step.overhead_s = time.overhead_s;
    step.bound = time.bound;
  }
}

}  // namespace tpusim::mtf
