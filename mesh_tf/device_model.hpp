#pragma once
// Time of local work on one core: a roofline per operation, max(compute time, bytes / HBM bandwidth), plus
// the per-op overhead. Compute time is a matmul's cycles on the systolic arrays (matrix_unit.hpp) and other
// work's vector operations on the vector unit (vector_unit.hpp), both at the clock the peak rate implies;
// with either unit's timing off, its work runs at the peak FLOP rate (the plain roofline). Bytes follow the
// tensors' dtypes (bf16 activations cost 2 bytes in HBM even though numerics run in fp32). Presets are half
// a chip's public figures (v2, v3: Jouppi et al., CACM 2020, see mesh_tf/README.md, The paper's figures; v4:
// the Cloud TPU v4 page, 275 TFLOP/s, 32 GiB and 1200 GB/s of HBM per chip of two TensorCores); v5e, v5p and
// v6e are a whole chip (one TensorCore, or v5p's megacore), sources cited in device_model.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mesh_tf/matrix_unit.hpp"
#include "mesh_tf/vector_unit.hpp"

namespace tpusim::mtf {

// The roofline term that set a local op's time (the per-op overhead comes on top of either).
// flop_rate: flops at the peak rate, the work of a unit whose timing is off.
enum class ComputeBound { flop_rate, matrix_unit, vector_unit, hbm_bandwidth };
const char* to_string(ComputeBound bound);  // "FLOP rate", "matrix unit", "vector unit", "HBM bandwidth"

struct OpTime {
  double time_s = 0;  // overhead_s plus the larger of the compute time and bytes / HBM bandwidth
  double overhead_s = 0;
  double compute_s = 0;  // the compute term alone (the matrix or vector unit, or the peak rate)
  ComputeBound compute_bound = ComputeBound::flop_rate;  // which unit that term is on
  ComputeBound bound = ComputeBound::flop_rate;
};

class DeviceModel {
 public:
  // Throws InputError naming the figure and its range when one is outside the plausible ranges of
  // topologies/support/units.hpp (sanity limits that keep every simulated time finite; the per-op overhead
  // is a latency).
  DeviceModel(std::string name, double peak_flops, double hbm_bandwidth_Bps, std::uint64_t hbm_bytes,
              double op_overhead_s = 0);
  // With their matrix units (128 x 128 arrays, 1, 2 and 4 of them per core on v2 to v4) and vector units (128
  // lanes x 8 sublanes x 2 ALUs; 4 ALUs per TensorCore from v5), both timed.
  static DeviceModel tpu_v2_core();                    // 22.5 TFLOP/s bf16, 350 GB/s, 8 GiB
  static DeviceModel tpu_v3_core();                    // 61.5 TFLOP/s bf16, 450 GB/s, 16 GiB
  static DeviceModel tpu_v4_core();                    // 137.5 TFLOP/s bf16, 600 GB/s, 16 GiB
  static DeviceModel tpu_v5e_core();                   // 197 TFLOP/s bf16, 819 GB/s, 16 GB; 4 128x128 MXUs
  static DeviceModel tpu_v5p_core();                   // 459 TFLOP/s bf16, 2765 GB/s, 95 GiB; 8 128x128 MXUs
  static DeviceModel tpu_v6e_core();                   // 918 TFLOP/s bf16, 1638 GB/s, 32 GB; 2 256x256 MXUs
  static DeviceModel preset(const std::string& name);  // "tpu-v2-core" .. "tpu-v6e-core", else InputError
  // The core of the TPU generation a topology preset names ("tpu-v3-pod" -> tpu-v3-core), else tpu-v2-core.
  static DeviceModel for_topology(const std::string& topology_name);
  static std::vector<std::string> preset_names();

  const std::string& name() const { return name_; }
  double peak_flops() const { return peak_flops_; }
  double hbm_bandwidth_Bps() const { return hbm_bandwidth_Bps_; }
  std::uint64_t hbm_bytes() const { return hbm_bytes_; }
  double op_overhead_s() const { return op_overhead_s_; }
  // The same device with other figures (checked as by the constructor), its units and their timing kept.
  DeviceModel with_figures(double peak_flops, double hbm_bandwidth_Bps, std::uint64_t hbm_bytes,
                           double op_overhead_s) const;
  // The units' shapes (a hand-made device may have none: its work runs at the peak rate).
  const std::optional<MatrixUnit>& matrix_unit() const { return matrix_unit_; }
  const std::optional<VectorUnit>& vector_unit() const { return vector_unit_; }
  DeviceModel with_matrix_unit(std::optional<MatrixUnit> unit) const;
  DeviceModel with_vector_unit(std::optional<VectorUnit> unit) const;
  // Whether each unit's timing is on (config hardware.matrix_unit and hardware.vector_unit); off, its work
  // runs at the peak FLOP rate. The vector unit needs the matrix unit's shape for the clock.
  DeviceModel with_matrix_unit_timing(bool timed) const;
  DeviceModel with_vector_unit_timing(bool timed) const;
  bool times_matrix_unit() const { return matrix_unit_ && matrix_unit_timed_; }
  bool times_vector_unit() const { return vector_unit_ && matrix_unit_ && vector_unit_timed_; }
  // The clock at which the matrix unit reaches the peak FLOP rate (two FLOPs per multiply-accumulate).
  double clock_Hz() const;

  // Work that is not a matmul: flops and transcendental functions, on the vector unit where it is timed, and
  // `extra_vector_ops` vector operations no FLOP count shows (random bits: random_bits.hpp), which run at the
  // peak FLOP rate, one FLOP each, with the vector unit's timing off.
  OpTime op_time(double flops, double bytes, double transcendentals = 0, double extra_vector_ops = 0) const;
  // On-chip memory a matmul's operands are staged in (config hardware.vector_memory), a user setting: no
  // public source gives it for the cores modelled, nor XLA's tiling. None (the presets): operands and result
  // go through HBM once. With a capacity, matmul_hbm_bytes adds what blocking costs.
  const std::optional<std::uint64_t>& vector_memory_bytes() const { return vector_memory_bytes_; }
  DeviceModel with_vector_memory(std::optional<std::uint64_t> bytes) const;
  // HBM bytes of a matmul of operands `a_bytes` and `b_bytes` into `result_bytes`. When both operands do
  // not fit the vector memory, one (the stationary operand) is held in parts of half the memory, the other
  // kept whole in output columns, and the streamed operand is read again for each further part: one-level
  // blocking, the cheaper choice of stationary operand.
  double matmul_hbm_bytes(double a_bytes, double b_bytes, double result_bytes) const;
  // A contraction of `sizes` (flops may add work beside the matmul, such as summing a dim only one operand
  // has, which is vector work). Where XLA keeps the dot (runs_on_matrix_unit): on the matrix unit, or at the
  // peak rate with its timing off; a dot XLA strength-reduces is vector work (op_time).
  OpTime matmul_time(const MatmulSizes& sizes, double flops, double bytes) const;
  // The roofline of work whose compute term is already known (a fusion's, fusion.hpp): overhead plus the
  // larger of compute_s and bytes / HBM bandwidth.
  OpTime roofline_time(double compute_s, ComputeBound compute_bound, double bytes) const;
  // The fraction of the matrix unit's modelled rate a calibration says is achieved (workloads' calibration
  // profiles; 1 unless one is applied): a matmul's matrix-unit time is divided by it.
  double matrix_unit_efficiency() const { return matrix_unit_efficiency_; }
  DeviceModel with_matrix_unit_efficiency(double efficiency) const;  // 0 < efficiency <= 1, else a bug
  // Every operation `factor` times longer (peak rates divided, overhead multiplied): a straggler's core.
  DeviceModel slowed(double factor) const;

 private:
  std::string name_;
  double peak_flops_;
  double hbm_bandwidth_Bps_;
  std::uint64_t hbm_bytes_;
  double op_overhead_s_;
  std::optional<MatrixUnit> matrix_unit_;
  std::optional<VectorUnit> vector_unit_;
  bool matrix_unit_timed_ = true;
  bool vector_unit_timed_ = true;
  std::optional<std::uint64_t> vector_memory_bytes_;
  double matrix_unit_efficiency_ = 1;
  double vector_compute_s(double flops, double transcendentals, double extra_vector_ops = 0) const;
};

}  // namespace tpusim::mtf
