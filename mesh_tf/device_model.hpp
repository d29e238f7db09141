#pragma once
// Time of local work on one core: a roofline per operation, max(compute time, bytes / HBM bandwidth), plus
// the per-op overhead. Compute time is flops / peak, except for matmuls when the device has a matrix unit:
// then the systolic arrays' cycles (matrix_unit.hpp) at the clock the peak implies. Bytes follow the
// tensors' dtypes (bf16 activations cost 2 bytes in HBM even though numerics run in fp32). Presets are half
// a chip's public figures (v2, v3: Jouppi et al., CACM 2020, see shared reference mesh_tf.md; v4: the Cloud
// TPU v4 page, 275 TFLOP/s, 32 GiB and 1200 GB/s of HBM per chip of two TensorCores).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mesh_tf/matrix_unit.hpp"

namespace tpusim::mtf {

// The roofline term that set a local op's time (the per-op overhead comes on top of either).
// flop_rate: flops at the peak rate (every op without a matrix unit, and what is not a matmul).
enum class ComputeBound { flop_rate, matrix_unit, hbm_bandwidth };
const char* to_string(ComputeBound bound);  // "FLOP rate", "matrix unit", "HBM bandwidth"

struct OpTime {
  double time_s = 0;  // overhead_s plus the larger of the compute time and bytes / HBM bandwidth
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
  // With their matrix units: 128 x 128 arrays, 1, 2 and 4 of them per core.
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
  // Without one, every matmul runs at the peak FLOP rate (the plain roofline).
  const std::optional<MatrixUnit>& matrix_unit() const { return matrix_unit_; }
  DeviceModel with_matrix_unit(std::optional<MatrixUnit> unit) const;
  // The clock at which the matrix unit reaches the peak FLOP rate (two FLOPs per multiply-accumulate).
  double clock_Hz() const;

  OpTime op_time(double flops, double bytes) const;
  // A contraction of `sizes` (flops may add work beside the matmul, such as summing a dim only one operand
  // has, which runs at the peak rate): on the matrix unit where the device has one and XLA keeps the dot
  // (runs_on_matrix_unit), else op_time.
  OpTime matmul_time(const MatmulSizes& sizes, double flops, double bytes) const;
  // Every operation `factor` times longer (peak rates divided, overhead multiplied): a straggler's core.
  DeviceModel slowed(double factor) const;

 private:
  std::string name_;
  double peak_flops_;
  double hbm_bandwidth_Bps_;
  std::uint64_t hbm_bytes_;
  double op_overhead_s_;
  std::optional<MatrixUnit> matrix_unit_;
};

}  // namespace tpusim::mtf
