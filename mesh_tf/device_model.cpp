#include "mesh_tf/device_model.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

DeviceModel::DeviceModel(std::string name, double peak_flops, double hbm_bandwidth_Bps,
                         std::uint64_t hbm_bytes, double op_overhead_s)
    : name_(std::move(name)),
      peak_flops_(peak_flops),
      hbm_bandwidth_Bps_(hbm_bandwidth_Bps),
      hbm_bytes_(hbm_bytes),
      op_overhead_s_(op_overhead_s) {
  auto check = [&](const char* what, double value, double low, double high, const char* unit) {
    if (!(value >= low && value <= high)) {
      throw InputError(fmt::format("device '{}': {} {:g} {} is outside the range {:g} .. {:g} {}", name_,
                                   what, value, unit, low, high, unit));
    }
  };
  check("peak FLOP rate", peak_flops_, kMinPeakFlops, kMaxPeakFlops, "FLOP/s");
  check("HBM bandwidth", hbm_bandwidth_Bps_, kMinHbmBandwidth_Bps, kMaxHbmBandwidth_Bps, "B/s");
  if (hbm_bytes_ == 0 || hbm_bytes_ > kMaxHbmBytes) {
    throw InputError(fmt::format("device '{}': HBM size {} bytes is outside the range 1 .. {} bytes (1 PiB)",
                                 name_, hbm_bytes_, kMaxHbmBytes));
  }
  check("per-op overhead", op_overhead_s_, 0, kMaxOpOverhead_s, "s");
}

// Half a chip of the public per-chip figures (two cores per chip), see shared reference mesh_tf.md.
DeviceModel DeviceModel::tpu_v2_core() { return DeviceModel("tpu-v2-core", 22.5e12, 350e9, 8ull << 30); }
DeviceModel DeviceModel::tpu_v3_core() { return DeviceModel("tpu-v3-core", 61.5e12, 450e9, 16ull << 30); }

std::vector<std::string> DeviceModel::preset_names() { return {"tpu-v2-core", "tpu-v3-core"}; }

DeviceModel DeviceModel::preset(const std::string& name) {
  if (name == "tpu-v2-core") return tpu_v2_core();
  if (name == "tpu-v3-core") return tpu_v3_core();
  throw InputError(fmt::format("unknown device '{}'{}; valid devices are {}", name,
                               did_you_mean(name, preset_names()), join(preset_names())));
}

double DeviceModel::op_time_s(double flops, double bytes) const {
  return op_overhead_s_ + std::max(flops / peak_flops_, bytes / hbm_bandwidth_Bps_);
}

}  // namespace tpusim::mtf
