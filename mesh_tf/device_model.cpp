#include "mesh_tf/device_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/name_table.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::mtf {
namespace {

void check_plausible(const std::string& device, const char* what, double value, const PlausibleRange& range,
                     const char* unit) {
  if (!(value >= range.min && value <= range.max)) {
    throw InputError(fmt::format("device '{}': {} {:g} {} is not plausible: expected {}", device, what, value,
                                 unit, range.text));
  }
}

}  // namespace

DeviceModel::DeviceModel(std::string name, double peak_flops, double hbm_bandwidth_Bps,
                         std::uint64_t hbm_bytes, double op_overhead_s)
    : name_(std::move(name)),
      peak_flops_(peak_flops),
      hbm_bandwidth_Bps_(hbm_bandwidth_Bps),
      hbm_bytes_(hbm_bytes),
      op_overhead_s_(op_overhead_s) {
  check_plausible(name_, "peak FLOP rate", peak_flops_, kFlopRateRange_flops, "FLOP/s");
  check_plausible(name_, "HBM bandwidth", hbm_bandwidth_Bps_, kBandwidthRange_Bps, "B/s");
  check_plausible(name_, "HBM size", static_cast<double>(hbm_bytes_), kMemoryRange_bytes, "bytes");
  check_plausible(name_, "per-op overhead", op_overhead_s_, kLatencyRange_s, "s");
}

// Half a chip of the public per-chip figures (two cores per chip), see mesh_tf/README.md, The paper's
// figures. Matrix units: 128 x 128 arrays of 16K multiply-accumulates per cycle each (Cloud TPU system
// architecture page); one per TensorCore on v2, two on v3 (Cloud TPU v2 and v3 pages), four on v4 (Cloud TPU
// v4 page; Jouppi et al., ISCA 2023); rows in groups of 8 sublanes (matrix_unit.hpp). The clocks these imply,
// 687 MHz, 938 MHz and 1049 MHz, agree with the published 700, 940 and 1050 MHz (Jouppi et al., CACM 2020 and
// ISCA 2023). Vector units: 128 lanes x 8 sublanes x 2 ALUs (vector_unit.hpp: Norrie and Patil, Hot Chips
// 2020, for v2 and v3; assumed the same on v4).
namespace {
// A function, not a namespace-scope constant: presets may be built while other files' statics initialise.
VectorUnit tpu_vector_unit() { return VectorUnit(128, 8, 2); }
}  // namespace
DeviceModel DeviceModel::tpu_v2_core() {
  return DeviceModel("tpu-v2-core", 22.5e12, 350e9, 8ull << 30)
      .with_matrix_unit(MatrixUnit(128, 1, 8))
      .with_vector_unit(tpu_vector_unit());
}
DeviceModel DeviceModel::tpu_v3_core() {
  return DeviceModel("tpu-v3-core", 61.5e12, 450e9, 16ull << 30)
      .with_matrix_unit(MatrixUnit(128, 2, 8))
      .with_vector_unit(tpu_vector_unit());
}
DeviceModel DeviceModel::tpu_v4_core() {
  return DeviceModel("tpu-v4-core", 137.5e12, 600e9, 16ull << 30)
      .with_matrix_unit(MatrixUnit(128, 4, 8))
      .with_vector_unit(tpu_vector_unit());
}

// TPU v5e, v5p and v6e from Google Cloud's pages (https://docs.cloud.google.com/tpu/docs/v5e, /v5p, /v6e) and
// Austin et al., "How to Scale Your Model" (2025), TPU chapter (https://jax-ml.github.io/scaling-book/tpus/).
// One device per chip: v5e and v6e have one TensorCore per chip; v5p's two run as one megacore (below). The
// int8 rates the sources give are noted, not modelled: the engine has no int8 dtype. Vector units: 128 lanes
// x 8 sublanes (Austin et al.; the v6e page) with 4 ALUs per lane and sublane on v5 (Austin et al., whose
// appendix describes v5p); no source gives v6e's ALUs, so its preset assumes v5's 4, a user setting
// (hardware.vector_alus_per_sublane) like the other figures no source gives.
namespace {
VectorUnit tpu_v5_vector_unit(int tensor_cores) { return VectorUnit(128, 8, 4 * tensor_cores); }
}  // namespace
// v5e: 197 TFLOP/s bf16 (393 TOPS int8), 16 GB of HBM2 (the page's decimal GB; the smaller reading) at
// 819 GB/s (a later version of the page writes "800 GiBps"), four MXUs per TensorCore, 128 x 128 as on every
// generation before v6e (Austin et al.). Implied clock 197e12 / (2 x 4 x 16384) = 1.503 GHz; Austin et al.:
// 1.5 GHz.
DeviceModel DeviceModel::tpu_v5e_core() {
  return DeviceModel("tpu-v5e-core", 197e12, 819e9, 16'000'000'000ull)
      .with_matrix_unit(MatrixUnit(128, 4, 8))
      .with_vector_unit(tpu_v5_vector_unit(1));
}
// v5p: 459 TFLOP/s bf16 per chip (918 TOPS int8: Austin et al.; the Cloud page gives FP8, also 459), 95 GiB
// of HBM (96 GiB physical, 1 GiB kept by the runtime, the page says) at 2765 GB/s, two TensorCores of four
// 128 x 128 MXUs. The device is the chip's megacore: the two TensorCores share the HBM and XLA runs them as
// one device, so JAX sees one device per chip (Austin et al.: "one large accelerator ... megacore", since v4)
// and a mesh never splits a chip over an on-chip link no program uses. Its units are both TensorCores': 8
// MXUs, and 2 x 4 ALUs per lane and sublane. Implied clock 459e12 / (2 x 8 x 16384) = 1.751 GHz; Austin et
// al.: 1.75 GHz. (The tpu-v4 presets still model v4's two TensorCores as two cores.)
DeviceModel DeviceModel::tpu_v5p_core() {
  return DeviceModel("tpu-v5p-core", 459e12, 2765e9, 95ull << 30)
      .with_matrix_unit(MatrixUnit(128, 8, 8))
      .with_vector_unit(tpu_v5_vector_unit(2));
}
// v6e (Trillium): 918 TFLOP/s bf16 (1836 TOPS int8), 32 GB of HBM at 1638 GB/s (earlier versions of the page:
// 1640 and 1600), two 256 x 256 MXUs per TensorCore. No source gives the clock; the two MXUs imply
// 918e12 / (2 x 2 x 65536) = 3.50 GHz. An earlier version of the page said four MXUs (1.75 GHz):
// hardware.matrix_units_per_core: 4 runs that reading.
DeviceModel DeviceModel::tpu_v6e_core() {
  return DeviceModel("tpu-v6e-core", 918e12, 1638e9, 32'000'000'000ull)
      .with_matrix_unit(MatrixUnit(256, 2, 8))
      .with_vector_unit(tpu_v5_vector_unit(1));
}

namespace {
const NameTable<DeviceModel (*)()>& presets() {
  static const NameTable<DeviceModel (*)()> table("device", {{"tpu-v2-core", DeviceModel::tpu_v2_core},
                                                             {"tpu-v3-core", DeviceModel::tpu_v3_core},
                                                             {"tpu-v4-core", DeviceModel::tpu_v4_core},
                                                             {"tpu-v5e-core", DeviceModel::tpu_v5e_core},
                                                             {"tpu-v5p-core", DeviceModel::tpu_v5p_core},
                                                             {"tpu-v6e-core", DeviceModel::tpu_v6e_core}});
  return table;
}
}  // namespace

std::vector<std::string> DeviceModel::preset_names() { return presets().names(); }

DeviceModel DeviceModel::preset(const std::string& name) { return presets().parse(name)(); }

DeviceModel DeviceModel::for_topology(const std::string& topology_name) {
  // A multislice spec's chips are its slice's: "multislice:4xtpu-v5p-cube" gets tpu-v5p-core
  // (topologies/multislice.hpp).
  std::string slice = topology_name;
  if (slice.rfind("multislice:", 0) == 0 && slice.find('x') != std::string::npos)
    slice = slice.substr(slice.find('x') + 1);
  for (const auto& name : preset_names()) {
    const std::string generation = name.substr(0, name.size() - std::string("-core").size());  // "tpu-v3"
    if (slice.rfind(generation + "-", 0) == 0) return preset(name);
  }
  return tpu_v2_core();
}

const char* to_string(ComputeBound bound) {
  switch (bound) {
    case ComputeBound::flop_rate:
      return "FLOP rate";
    case ComputeBound::matrix_unit:
      return "matrix unit";
    case ComputeBound::vector_unit:
      return "vector unit";
    case ComputeBound::hbm_bandwidth:
      return "HBM bandwidth";
  }
  return "?";
}

DeviceModel DeviceModel::with_matrix_unit(std::optional<MatrixUnit> unit) const {
  DeviceModel device = *this;
  device.matrix_unit_ = unit;
  return device;
}

DeviceModel DeviceModel::with_figures(double peak_flops, double hbm_bandwidth_Bps, std::uint64_t hbm_bytes,
                                      double op_overhead_s) const {
  DeviceModel device(name_, peak_flops, hbm_bandwidth_Bps, hbm_bytes, op_overhead_s);
  device.matrix_unit_ = matrix_unit_;
  device.vector_unit_ = vector_unit_;
  device.matrix_unit_timed_ = matrix_unit_timed_;
  device.vector_unit_timed_ = vector_unit_timed_;
  device.vector_memory_bytes_ = vector_memory_bytes_;
  device.matrix_unit_efficiency_ = matrix_unit_efficiency_;
  return device;
}

DeviceModel DeviceModel::with_matrix_unit_efficiency(double efficiency) const {
  TPUSIM_CHECK(efficiency > 0 && efficiency <= 1);
  DeviceModel device = *this;
  device.matrix_unit_efficiency_ = efficiency;
  return device;
}

DeviceModel DeviceModel::with_vector_memory(std::optional<std::uint64_t> bytes) const {
  if (bytes)
    check_plausible(name_, "vector memory", static_cast<double>(*bytes), kMemoryRange_bytes, "bytes");
  DeviceModel device = *this;
  device.vector_memory_bytes_ = bytes;
  return device;
}

double DeviceModel::matmul_hbm_bytes(double a_bytes, double b_bytes, double result_bytes) const {
  const double once = a_bytes + b_bytes + result_bytes;
  if (!vector_memory_bytes_ || a_bytes + b_bytes <= static_cast<double>(*vector_memory_bytes_)) return once;
  const double part_bytes = static_cast<double>(*vector_memory_bytes_) / 2;
  auto rereads = [&](double stationary, double streamed) {
    return (std::ceil(stationary / part_bytes) - 1) * streamed;
  };
  return once + std::min(rereads(a_bytes, b_bytes), rereads(b_bytes, a_bytes));
}

DeviceModel DeviceModel::with_vector_unit(std::optional<VectorUnit> unit) const {
  DeviceModel device = *this;
  device.vector_unit_ = unit;
  return device;
}

DeviceModel DeviceModel::with_matrix_unit_timing(bool timed) const {
  DeviceModel device = *this;
  device.matrix_unit_timed_ = timed;
  return device;
}

DeviceModel DeviceModel::with_vector_unit_timing(bool timed) const {
  DeviceModel device = *this;
  device.vector_unit_timed_ = timed;
  return device;
}

double DeviceModel::clock_Hz() const {
  TPUSIM_CHECK(matrix_unit_.has_value());
  return peak_flops_ / (2 * matrix_unit_->macs_per_cycle());
}

namespace {
OpTime roofline(double compute_s, ComputeBound compute_bound, double bytes, double hbm_bandwidth_Bps,
                double overhead_s) {
  const double memory_s = bytes / hbm_bandwidth_Bps;
  OpTime time;
  time.overhead_s = overhead_s;
  time.compute_s = compute_s;
  time.compute_bound = compute_bound;
  time.bound = memory_s > compute_s ? ComputeBound::hbm_bandwidth : compute_bound;
  time.time_s = overhead_s + std::max(compute_s, memory_s);
  return time;
}
}  // namespace

double DeviceModel::vector_compute_s(double flops, double transcendentals, double extra_vector_ops) const {
  if (!times_vector_unit()) return (flops + extra_vector_ops) / peak_flops_;
  return (vector_unit_->vector_ops(flops, transcendentals) + extra_vector_ops) /
         (vector_unit_->ops_per_cycle() * clock_Hz());
}

OpTime DeviceModel::op_time(double flops, double bytes, double transcendentals,
                            double extra_vector_ops) const {
  return roofline(vector_compute_s(flops, transcendentals, extra_vector_ops),
                  times_vector_unit() ? ComputeBound::vector_unit : ComputeBound::flop_rate, bytes,
                  hbm_bandwidth_Bps_, op_overhead_s_);
}

OpTime DeviceModel::matmul_time(const MatmulSizes& sizes, double flops, double bytes) const {
  if (!runs_on_matrix_unit(sizes)) return op_time(flops, bytes);
  const double matmul_flops = 2.0 * sizes.batch * sizes.m * sizes.n * sizes.k;
  TPUSIM_CHECK(flops >= matmul_flops);
  const double extra_s = vector_compute_s(flops - matmul_flops, 0);
  if (!times_matrix_unit())
    return roofline(matmul_flops / peak_flops_ / matrix_unit_efficiency_ + extra_s, ComputeBound::flop_rate,
                    bytes, hbm_bandwidth_Bps_, op_overhead_s_);
  const double compute_s = matrix_unit_->cycles(sizes) / clock_Hz() / matrix_unit_efficiency_ + extra_s;
  return roofline(compute_s, ComputeBound::matrix_unit, bytes, hbm_bandwidth_Bps_, op_overhead_s_);
}

OpTime DeviceModel::roofline_time(double compute_s, ComputeBound compute_bound, double bytes) const {
  return roofline(compute_s, compute_bound, bytes, hbm_bandwidth_Bps_, op_overhead_s_);
}

DeviceModel DeviceModel::slowed(double factor) const {
  if (factor == 1.0) return *this;
  DeviceModel device =
      with_figures(peak_flops_ / factor, hbm_bandwidth_Bps_ / factor, hbm_bytes_, op_overhead_s_ * factor);
  device.name_ = fmt::format("{} slowed {:g}x", name_, factor);
  return device;
}

}  // namespace tpusim::mtf
