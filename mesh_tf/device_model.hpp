#pragma once
// Time of local work on one core: a roofline per operation, max(flops / peak, bytes / HBM bandwidth). Bytes
// follow the tensors' dtypes (bf16 activations cost 2 bytes in HBM even though numerics run in fp32).
// Presets are half a chip's public figures (v2, v3: Jouppi et al., CACM 2020, see shared reference
// mesh_tf.md; v4: the Cloud TPU v4 page, 275 TFLOP/s, 32 GiB and 1200 GB/s of HBM per chip of two
// TensorCores).
#include <cstdint>
#include <string>
#include <vector>

namespace tpusim::mtf {

// The roofline term that set a local op's time (the per-op overhead comes on top of either).
enum class ComputeBound { flop_rate, hbm_bandwidth };
const char* to_string(ComputeBound bound);  // "FLOP rate", "HBM bandwidth"

struct OpTime {
  double time_s = 0;  // overhead_s plus the larger of flops / peak and bytes / HBM bandwidth
  double overhead_s = 0;
  ComputeBound bound = ComputeBound::flop_rate;
};

class DeviceModel {
 public:
  // Throws InputError naming the figure and its range when one is outside the plausible ranges of
  // topologies/support/units.hpp (sanity limits that keep every simulated time finite; the per-op overhead
  // is a latency).
  DeviceModel(std::string name, double peak_flops, double hbm_bandwidth_Bps, std::uint64_t hbm_bytes,
              double op_overhead_s = 0);
  static DeviceModel tpu_v2_core();                    // 22.5 TFLOP/s bf16, 350 GB/s, 8 GiB
  static DeviceModel tpu_v3_core();                    // 61.5 TFLOP/s bf16, 450 GB/s, 16 GiB
  static DeviceModel tpu_v4_core();                    // 137.5 TFLOP/s bf16, 600 GB/s, 16 GiB
  static DeviceModel preset(const std::string& name);  // "tpu-v2-core" .. "tpu-v4-core", InputError otherwise
  // The core of the TPU generation a topology preset names ("tpu-v3-pod" -> tpu-v3-core), else tpu-v2-core.
  static DeviceModel for_topology(const std::string& topology_name);
  static std::vector<std::string> preset_names();

  const std::string& name() const { return name_; }
  double peak_flops() const { return peak_flops_; }
  double hbm_bandwidth_Bps() const { return hbm_bandwidth_Bps_; }
  std::uint64_t hbm_bytes() const { return hbm_bytes_; }
  double op_overhead_s() const { return op_overhead_s_; }
  OpTime op_time(double flops, double bytes) const;
  // Every operation `factor` times longer (peak rates divided, overhead multiplied): a straggler's core.
  DeviceModel slowed(double factor) const;

 private:
  std::string name_;
  double peak_flops_;
  double hbm_bandwidth_Bps_;
  std::uint64_t hbm_bytes_;
  double op_overhead_s_;
};

}  // namespace tpusim::mtf
