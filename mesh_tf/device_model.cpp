#include "mesh_tf/device_model.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/input_error.hpp"
#include "topologies/support/name_table.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::mtf {

DeviceModel::DeviceModel(std::string name, double peak_flops, double hbm_bandwidth_Bps,
                         std::uint64_t hbm_bytes, double op_overhead_s)
    : name_(std::move(name)),
      peak_flops_(peak_flops),
      hbm_bandwidth_Bps_(hbm_bandwidth_Bps),
      hbm_bytes_(hbm_bytes),
      op_overhead_s_(op_overhead_s) {
  auto check = [&](const char* what, double value, const PlausibleRange& range, const char* unit) {
    if (!(value >= range.min && value <= range.max)) {
      throw InputError(fmt::format("device '{}': {} {:g} {} is not plausible: expected {}", name_, what,
                                   value, unit, range.text));
    }
  };
  check("peak FLOP rate", peak_flops_, kFlopRateRange_flops, "FLOP/s");
  check("HBM bandwidth", hbm_bandwidth_Bps_, kBandwidthRange_Bps, "B/s");
  check("HBM size", static_cast<double>(hbm_bytes_), kMemoryRange_bytes, "bytes");
  check("per-op overhead", op_overhead_s_, kLatencyRange_s, "s");
}

// Half a chip of the public per-chip figures (two cores per chip), see shared reference mesh_tf.md.
DeviceModel DeviceModel::tpu_v2_core() { return DeviceModel("tpu-v2-core", 22.5e12, 350e9, 8ull << 30); }
DeviceModel DeviceModel::tpu_v3_core() { return DeviceModel("tpu-v3-core", 61.5e12, 450e9, 16ull << 30); }
DeviceModel DeviceModel::tpu_v4_core() { return DeviceModel("tpu-v4-core", 137.5e12, 600e9, 16ull << 30); }

namespace {
const NameTable<DeviceModel (*)()>& presets() {
  static const NameTable<DeviceModel (*)()> table("device", {{"tpu-v2-core", DeviceModel::tpu_v2_core},
                                                             {"tpu-v3-core", DeviceModel::tpu_v3_core},
                                                             {"tpu-v4-core", DeviceModel::tpu_v4_core}});
  return table;
}
}  // namespace

std::vector<std::string> DeviceModel::preset_names() { return presets().names(); }

DeviceModel DeviceModel::preset(const std::string& name) { return presets().parse(name)(); }

DeviceModel DeviceModel::for_topology(const std::string& topology_name) {
  for (const auto& name : preset_names()) {
    const std::string generation = name.substr(0, name.size() - std::string("-core").size());  // "tpu-v3"
    if (topology_name.rfind(generation + "-", 0) == 0) return preset(name);
  }
  return tpu_v2_core();
}

const char* to_string(ComputeBound bound) {
  return bound == ComputeBound::flop_rate ? "FLOP rate" : "HBM bandwidth";
}

OpTime DeviceModel::op_time(double flops, double bytes) const {
  const double compute_s = flops / peak_flops_, memory_s = bytes / hbm_bandwidth_Bps_;
  OpTime time;
  time.overhead_s = op_overhead_s_;
  time.bound = memory_s > compute_s ? ComputeBound::hbm_bandwidth : ComputeBound::flop_rate;
  time.time_s = op_overhead_s_ + std::max(compute_s, memory_s);
  return time;
}

DeviceModel DeviceModel::slowed(double factor) const {
  if (factor == 1.0) return *this;
  return DeviceModel(fmt::format("{} slowed {:g}x", name_, factor), peak_flops_ / factor,
                     hbm_bandwidth_Bps_ / factor, hbm_bytes_, op_overhead_s_ * factor);
}

}  // namespace tpusim::mtf
