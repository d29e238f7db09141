// The rows of the `hardware:` section: the pod, its per-core device, overrides of their figures, and the
// simulator's collective algorithm per mesh axis.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sim/algorithm_choice.hpp"
#include "sim/algorithm_registry.hpp"
#include "topologies/presets.hpp"
#include "topologies/simulation_memory.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/name_table.hpp"
#include "topologies/support/units.hpp"
#include "workloads/config/config_schema.hpp"
#include "workloads/fidelity/calibration.hpp"

namespace tpusim::workloads {
namespace {

const char* const kFlopRate = "FLOP rate (22.5T, 45e12, 22.5TFLOPS)";
const char* const kMemorySize = "memory size (4096, 64KiB, 1GiB, 1.5GB)";
const char* const kBandwidth = "bandwidth in bytes/s (62GBps, 496Gbps, 1e9)";
const char* const kLatency = "latency (1us, 2.5ms, 1e-6)";

// The device with one figure replaced (a figure's own row checked its range).
struct DeviceFigures {
  double peak_flops;
  double hbm_bandwidth_Bps;
  std::uint64_t hbm_bytes;
  double op_overhead_s;
};
template <typename T>
void set_device_figure(ConfigReading& r, T DeviceFigures::*figure, T value) {
  const mtf::DeviceModel& device = r.config.hardware.device;
  DeviceFigures figures{device.peak_flops(), device.hbm_bandwidth_Bps(), device.hbm_bytes(),
                        device.op_overhead_s()};
  figures.*figure = value;
  r.config.hardware.device = device.with_figures(figures.peak_flops, figures.hbm_bandwidth_Bps,
                                                 figures.hbm_bytes, figures.op_overhead_s);
}

// hardware.matrix_unit and hardware.vector_unit: whether each unit's work is timed on it or at the peak FLOP
// rate.
const NameTable<bool>& matrix_unit_modes() {
  static const NameTable<bool> table("matrix unit timing", {{"systolic", true}, {"peak_rate", false}});
  return table;
}
const NameTable<bool>& vector_unit_modes() {
  static const NameTable<bool> table("vector unit timing", {{"simd", true}, {"peak_rate", false}});
  return table;
}

// hardware.matrix_unit or hardware.vector_unit: whether the device's unit times its work (`modes` maps the
// names to true and false).
ConfigKey unit_timing_key(const std::string& key, const NameTable<bool>& modes,
                          mtf::DeviceModel (mtf::DeviceModel::*with_timing)(bool) const,
                          bool (mtf::DeviceModel::*times)() const, const std::string& help) {
  return ConfigKey(key, "one of " + join(modes.names()), help)
      .absent_means(modes.names().front())
      .needs({"hardware.device"})
      .reads([&modes, with_timing](const ConfigNode& value, ConfigReading& r) {
        r.config.hardware.device = (r.config.hardware.device.*with_timing)(value.choice(modes));
      })
      .reports([&modes, times](const RunConfig& c) { return modes.name_of((c.hardware.device.*times)()); });
}

// A whole number in [min, max], or an error at the key.
int whole_number_in(const ConfigNode& value, int min, int max) {
  const std::int64_t number = value.integer();
  if (number < min || number > max)
    value.fail(fmt::format("{} is not plausible: expected {} to {}", number, min, max));
  return static_cast<int>(number);
}

// The device with its matrix unit's shape changed (side or arrays), or InputError at the key.
void set_matrix_unit(const ConfigNode& value, ConfigReading& r, std::optional<int> side,
                     std::optional<int> arrays) {
  mtf::DeviceModel& device = r.config.hardware.device;
  if (!device.times_matrix_unit()) value.fail("the matrix unit is off (hardware.matrix_unit: peak_rate)");
  const mtf::MatrixUnit& unit = *device.matrix_unit();
  try {
    device = device.with_matrix_unit(mtf::MatrixUnit(
        side.value_or(unit.side()), arrays.value_or(unit.arrays_per_core()), unit.row_granule()));
  } catch (const InputError& error) {
    value.fail(error.what());
  }
}

// The device with one figure of its vector unit changed (ALUs or a transcendental's cost), or InputError at
// the key.
void set_vector_unit(const ConfigNode& value, ConfigReading& r, std::optional<int> alus,
                     std::optional<double> transcendental_ops) {
  mtf::DeviceModel& device = r.config.hardware.device;
  if (!device.times_vector_unit()) value.fail("the vector unit is off (hardware.vector_unit: peak_rate)");
  const mtf::VectorUnit& unit = *device.vector_unit();
  try {
    device = device.with_vector_unit(mtf::VectorUnit(unit.lanes(), unit.sublanes(),
                                                     alus.value_or(unit.alus_per_sublane()),
                                                     transcendental_ops.value_or(unit.transcendental_ops())));
  } catch (const InputError& error) {
    value.fail(error.what());
  }
}

// hardware.matrix_unit_side or hardware.matrix_units_per_core: one figure of the matrix unit's shape.
ConfigKey matrix_unit_shape_key(const std::string& key, const std::string& type, const std::string& help,
                                int min, int max, int (mtf::MatrixUnit::*figure)() const) {
  return ConfigKey(key, type, help)
      .ranged(fmt::format("{} to {}", min, max))
      .absent_means("the device's")
      .needs({"hardware.matrix_unit"})
      .reads([=](const ConfigNode& value, ConfigReading& r) {
        const int number = whole_number_in(value, min, max);
        const bool side = figure == &mtf::MatrixUnit::side;
        set_matrix_unit(value, r, side ? std::optional<int>(number) : std::nullopt,
                        side ? std::nullopt : std::optional<int>(number));
      })
      .reports([figure](const RunConfig& c) {
        const auto& unit = c.hardware.device.matrix_unit();
        return unit ? ((*unit).*figure)() : 0;
      });
}

// A key choosing one of the names of `table` for a member of the hardware section.
template <typename T>
ConfigKey policy_key(const std::string& key, const NameTable<T>& table, T HardwareConfig::*member,
                     const std::string& absent, const std::string& help) {
  return ConfigKey(key, "one of " + join(table.names()), help)
      .absent_means(absent)
      .reads([&table, member](const ConfigNode& value, ConfigReading& r) {
        r.config.hardware.*member = value.choice(table);
      })
      .reports([&table, member](const RunConfig& c) { return table.name_of(c.hardware.*member); });
}

// The topology with the link parameters of one kind replaced.
void set_links(ConfigReading& r, bool inter_chip, std::optional<double> bandwidth_Bps,
               std::optional<double> latency_s) {
  topo::Topology& topology = r.config.hardware.topology;
  const topo::LinkParams& old = inter_chip ? topology.inter_chip() : topology.intra_chip();
  const topo::LinkParams link(bandwidth_Bps.value_or(old.bandwidth_Bps()),
                              latency_s.value_or(old.latency_s()));
  topology = inter_chip ? topology.with_links(link, topology.intra_chip())
                        : topology.with_links(topology.inter_chip(), link);
}

}  // namespace

std::vector<std::string> collective_algorithm_names() {
  std::vector<std::string> names;
  for (const auto& info : sim::algorithm_table()) {
    if (std::find(names.begin(), names.end(), info.name) == names.end()) names.push_back(info.name);
  }
  names.push_back(sim::kAutoAlgorithm);
  return names;
}

std::vector<ConfigKey> hardware_keys() {
  std::vector<ConfigKey> keys = {
      ConfigKey("hardware.topology", "topology preset or spec",
                "The pod: a preset (tpusim topo describe lists them) or a spec such as "
                "torus:16x16,cores=2,bw=62GBps,lat=1us.")
          .ranged("at most what 4 GiB of simulator state allows (topologies/simulation_memory.hpp)")
          .defaults_to("tpu-v2-pod")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            try {
              r.config.hardware.topology = topo::topology_from_spec(value.scalar());
              topo::require_simulation_fits(r.config.hardware.topology);
            } catch (const InputError& error) {
              value.fail(error.what());
            }
          })
          .reports([](const RunConfig& c) { return c.hardware.topology.name(); }),
      ConfigKey("hardware.faults", "faults text",
                "Links down or slow, stragglers and random links down, ';'-separated: down:3.4+x, "
                "slow:3.4+x:0.5, straggler:3.4:1.5, random:4:7 (4 links down, seed 7). Messages take the "
                "shortest paths over the links left; rings through a link that is down are refused; a "
                "straggler slows every op of the step, since each core waits for it.")
          .absent_means("a healthy pod")
          .needs({"hardware.topology"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            try {
              r.config.hardware.topology = r.config.hardware.topology.with_faults(value.scalar());
            } catch (const InputError& error) {
              value.fail(error.what());
            }
          })
          .reports([](const RunConfig& c) { return c.hardware.topology.faults().text(); }),
      ConfigKey("hardware.device", "one of " + join(mtf::DeviceModel::preset_names()),
                "The device model of each core (mtf::DeviceModel); the keys below override its figures.")
          .computed("the core of a tpu-v* topology preset's generation, else tpu-v2-core",
                    [](ConfigReading& r) {
                      r.config.hardware.device =
                          mtf::DeviceModel::for_topology(r.config.hardware.topology.name());
                    })
          .needs({"hardware.topology"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            r.config.hardware.device =
                mtf::DeviceModel::preset(value.one_of(mtf::DeviceModel::preset_names()));
            // A TPU topology preset implies its core; another core on it is allowed (a what-if) but is
            // more often a base config moved to a new pod with its old device: say so.
            const std::string topology = r.config.hardware.topology.name();
            const std::string implied = mtf::DeviceModel::for_topology(topology).name();
            if (topology.rfind("tpu-v", 0) == 0 && implied != r.config.hardware.device.name()) {
              r.config.warnings.push_back(fmt::format(
                  "{}: {} is not the core of topology {} ({} is); the run uses {}'s figures", value.where(),
                  r.config.hardware.device.name(), topology, implied, r.config.hardware.device.name()));
            }
          })
          .reports([](const RunConfig& c) { return c.hardware.device.name(); }),
      ConfigKey("hardware.peak_flops_per_core", kFlopRate, "Peak FLOP rate of one core.")
          .ranged(kFlopRateRange_flops.text)
          .absent_means("the device's")
          .needs({"hardware.device"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            set_device_figure(r, &DeviceFigures::peak_flops, value.flops());
          })
          .reports([](const RunConfig& c) { return c.hardware.device.peak_flops(); }),
      ConfigKey("hardware.hbm_per_core", kMemorySize, "HBM of one core.")
          .ranged(kMemoryRange_bytes.text)
          .absent_means("the device's")
          .needs({"hardware.device"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            set_device_figure(r, &DeviceFigures::hbm_bytes, value.memory_bytes());
          })
          .reports([](const RunConfig& c) { return c.hardware.device.hbm_bytes(); }, "hbm_bytes_per_core"),
      ConfigKey("hardware.vector_memory", std::string(kMemorySize) + ", or none",
                "On-chip memory of one core that a matmul's operands are staged in. When both operands do "
                "not fit, one is held in parts of half this memory and the other is read from HBM again for "
                "each further part (one-level blocking, the cheaper of the two choices: "
                "mesh_tf/device_model.hpp). A user setting: no public source gives it for the cores "
                "modelled, nor XLA's tiling; none, operands and results go through HBM once.")
          .ranged(kMemoryRange_bytes.text)
          .defaults_to("none")
          .needs({"hardware.device"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            mtf::DeviceModel& device = r.config.hardware.device;
            const std::string text = value.scalar();
            // A word is meant as none, a size starts with a figure: say which the value missed.
            if (text != "none" && !text.empty() && std::isalpha(static_cast<unsigned char>(text.front()))) {
              value.fail(
                  fmt::format("'{}' is neither none nor a size{}: expected none, or a size such as 16MiB",
                              text, did_you_mean(text, {"none"})));
            }
            device = device.with_vector_memory(
                text == "none" ? std::nullopt : std::optional<std::uint64_t>(value.memory_bytes()));
          })
          .reports([](const RunConfig& c) -> nlohmann::json {
            const auto& bytes = c.hardware.device.vector_memory_bytes();
            return bytes ? nlohmann::json(*bytes) : nlohmann::json("none");
          }),
      ConfigKey("hardware.hbm_bandwidth_per_core", kBandwidth, "HBM bandwidth of one core.")
          .ranged(kBandwidthRange_Bps.text)
          .absent_means("the device's")
          .needs({"hardware.device"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            set_device_figure(r, &DeviceFigures::hbm_bandwidth_Bps, value.bandwidth_Bps());
          })
          .reports([](const RunConfig& c) { return c.hardware.device.hbm_bandwidth_Bps(); },
                   "hbm_bandwidth_Bps_per_core"),
      ConfigKey("hardware.op_overhead", kLatency,
                "Time every local op of the lowered program takes on top of its roofline time (launch and "
                "pipeline latency of a kernel). A user setting: no public source gives it for the TPU cores "
                "modelled, so the devices' is 0; tpusim run --explain shows what it adds.")
          .ranged(kLatencyRange_s.text)
          .absent_means("the device's (0)")
          .needs({"hardware.device"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            set_device_figure(r, &DeviceFigures::op_overhead_s, value.latency_s());
          })
          .reports([](const RunConfig& c) { return c.hardware.device.op_overhead_s(); }, "op_overhead_s"),
      unit_timing_key(
          "hardware.matrix_unit", matrix_unit_modes(), &mtf::DeviceModel::with_matrix_unit_timing,
          &mtf::DeviceModel::times_matrix_unit,
          "How matmuls are timed: systolic, on the device's matrix unit (weight-stationary arrays "
          "of side x side cells; operands padded to whole tiles and rows of 8, each tile at least "
          "`side` cycles, one fill and drain per matmul; dots XLA turns into multiply and reduce "
          "excluded: mesh_tf/matrix_unit.hpp), or peak_rate, every matmul at the peak FLOP rate "
          "(the plain roofline)."),
      matrix_unit_shape_key("hardware.matrix_unit_side", "whole number of cells",
                            "Side of each systolic array of the matrix unit (128 on TPU v2 to v5p, 256 on "
                            "v6e).",
                            8, 1024, &mtf::MatrixUnit::side),
      matrix_unit_shape_key(
          "hardware.matrix_units_per_core", "whole number",
          "Systolic arrays per core (1 on TPU v2, 2 on v3, 4 on v4 and v5e, 8 on v5p's megacore, 2 on v6e). "
          "The clock follows from the peak FLOP rate: peak / (2 x side^2 x arrays).",
          1, 64, &mtf::MatrixUnit::arrays_per_core),
      unit_timing_key(
          "hardware.vector_unit", vector_unit_modes(), &mtf::DeviceModel::with_vector_unit_timing,
          &mtf::DeviceModel::times_vector_unit,
          "How work other than matmuls is timed: simd, on the device's vector unit (lanes x "
          "sublanes x ALUs vector operations per cycle at the core's clock, a transcendental "
          "function costing hardware.transcendental_vector_ops of them: mesh_tf/vector_unit.hpp), "
          "or peak_rate, every FLOP at the peak rate (the plain roofline)."),
      ConfigKey("hardware.transcendental_vector_ops", "number",
                "Vector operations one transcendental function (exp, log, tanh, sqrt, rsqrt, the logistic) "
                "costs per element. A user setting: no public source gives it for the TPU cores modelled, "
                "so the devices' is 1, a transcendental counted like any vector operation.")
          .ranged("1 to 1000")
          .absent_means("the device's (1)")
          .needs({"hardware.vector_unit"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            set_vector_unit(value, r, std::nullopt, value.number());
          })
          .reports([](const RunConfig& c) {
            return c.hardware.device.vector_unit() ? c.hardware.device.vector_unit()->transcendental_ops()
                                                   : 0.0;
          }),
      ConfigKey("hardware.vector_alus_per_sublane", "whole number",
                "ALUs of each lane and sublane of the vector unit: 2 on TPU v2 and v3 (Norrie and Patil, Hot "
                "Chips 2020), 4 per TensorCore on v5 (Austin et al., How to Scale Your Model, 2025; 8 on "
                "v5p's megacore of two). A user setting where no source gives it: v4 keeps v3's 2 and v6e "
                "v5's 4.")
          .ranged("1 to 4096")
          .absent_means("the device's")
          .needs({"hardware.vector_unit"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            set_vector_unit(value, r, whole_number_in(value, 1, 4096), std::nullopt);
          })
          .reports([](const RunConfig& c) {
            return c.hardware.device.vector_unit() ? c.hardware.device.vector_unit()->alus_per_sublane() : 0;
          }),
      ConfigKey("hardware.inter_chip_bandwidth", kBandwidth, "Bandwidth of each link between chips, one way.")
          .ranged(kBandwidthRange_Bps.text)
          .absent_means("the topology's")
          .needs({"hardware.topology"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            set_links(r, true, value.bandwidth_Bps(), std::nullopt);
          })
          .reports([](const RunConfig& c) { return c.hardware.topology.inter_chip().bandwidth_Bps(); },
                   "inter_chip_bandwidth_Bps"),
      ConfigKey("hardware.inter_chip_latency", kLatency, "Latency of each link between chips.")
          .ranged(kLatencyRange_s.text)
          .absent_means("the topology's")
          .needs({"hardware.topology"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            set_links(r, true, std::nullopt, value.latency_s());
          })
          .reports([](const RunConfig& c) { return c.hardware.topology.inter_chip().latency_s(); },
                   "inter_chip_latency_s"),
      ConfigKey("hardware.intra_chip_bandwidth", kBandwidth,
                "Bandwidth between the cores of one chip, one way.")
          .ranged(kBandwidthRange_Bps.text)
          .absent_means("the topology's")
          .needs({"hardware.topology"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            set_links(r, false, value.bandwidth_Bps(), std::nullopt);
          })
          .reports([](const RunConfig& c) { return c.hardware.topology.intra_chip().bandwidth_Bps(); },
                   "intra_chip_bandwidth_Bps"),
      ConfigKey("hardware.intra_chip_latency", kLatency, "Latency between the cores of one chip.")
          .ranged(kLatencyRange_s.text)
          .absent_means("the topology's")
          .needs({"hardware.topology"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            set_links(r, false, std::nullopt, value.latency_s());
          })
          .reports([](const RunConfig& c) { return c.hardware.topology.intra_chip().latency_s(); },
                   "intra_chip_latency_s"),
      policy_key(
          "hardware.collective_backend", mtf::collective_backends(), &HardwareConfig::collective_backend,
          "mesh_tf_tpu",
          "How each collective is issued: mesh_tf_tpu as Mesh-TensorFlow's TPU backend did "
          "(simd_mesh_impl.py: a bfloat16 allreduce over more than 8 cores in float32, an allconcat as a "
          "masked allreduce of group-size copies, a max allreduce as such an allconcat per mesh axis, a "
          "float32 alltoall in bfloat16), or ideal: each as the collective it stands for, in the tensor's "
          "dtype."),
      policy_key(
          "hardware.fusion", mtf::fusion_policies(), &HardwareConfig::fusion, "xla",
          "How XLA fuses local ops (mesh_tf/fusion.hpp): xla, elementwise ops fused into the op that "
          "reads them (matmuls and convolutions included, which also take elementwise consumers into "
          "their output), cheap broadcast-only ops computed again in each reader, and sums over one "
          "tensor computed in one pass, each fusion reading and writing HBM once and paying the per-op "
          "overhead once; loop, only chains of elementwise ops into one elementwise op or reduction "
          "(earlier versions); or none, every op reading and writing HBM."),
      policy_key(
          "hardware.rematerialization", mtf::rematerialization_policies(), &HardwareConfig::rematerialization,
          "none",
          "Whether values are computed again rather than held (mesh_tf/rematerialization.hpp): xla, as "
          "XLA's rematerialization pass does, when the peak of live buffers exceeds HBM, values held "
          "across the peak for a later reader are dropped and computed again before it, the cheapest per "
          "byte first, until the step fits (if none gets there, nothing changes and the run does not "
          "fit); layers, activation checkpointing per layer (jax.checkpoint or Mesh-TensorFlow's "
          "recompute_grad around each layer), whatever the memory: each layer holds only what it reads and "
          "hands on, and what its backward pass needs is computed again just before it; or none, buffers "
          "held as assigned."),
  };
  // What each checkpointed layer holds (layer_checkpoint_keys.cpp), after the policy it refines.
  for (auto& key : layer_checkpoint_keys()) keys.push_back(std::move(key));
  std::vector<ConfigKey> rest = {
      ConfigKey("hardware.calibration", "a shipped profile name, or a profile file (YAML)",
                "A calibration profile of tpusim calibrate (workloads/fidelity/calibration.hpp): the step is "
                "timed with the device's matrix unit and HBM at the profile's achieved fractions, its "
                "per-kernel and per-step overheads added, and reported beside the step of the mechanisms "
                "alone. The profile must be of the config's device. Shipped: " +
                    join(shipped_profile_names()) + ".")
          .absent_means("none: the mechanisms alone")
          .needs({"hardware.device"})
          .reads([](const ConfigNode& value, ConfigReading& r) {
            if (value.scalar() == "none") return;
            CalibrationProfile profile;
            try {
              profile = load_calibration_profile(value.scalar());
            } catch (const InputError& error) {
              value.fail(error.what());
            }
            const std::string& device = r.config.hardware.device.name();
            if (profile.device != device)
              value.fail(fmt::format("profile '{}' is of {}, but the config's device is {}", profile.name,
                                     profile.device, device));
            for (const auto& warning : range_edge_warnings(profile))
              r.config.warnings.push_back(value.where() + ": " + warning);
            r.config.hardware.calibration = profile;
          })
          .reports([](const RunConfig& c) -> nlohmann::json {
            return c.hardware.calibration ? nlohmann::json(c.hardware.calibration->source)
                                          : nlohmann::json("none");
          }),
      ConfigKey("hardware.allreduce_combine", std::string(kMemorySize) + ", or none",
                "XLA's all-reduce combiner (mesh_tf/allreduce_combiner.hpp): independent sums over the same "
                "mesh axes are merged into one allreduce of up to this many bytes per core, so many small "
                "gradient sums pay the latency once, such as 30MiB (XLA's GPU default; the TPU backend's "
                "threshold is not public); none, the default: every allreduce as lowered, one per tensor, "
                "as Mesh-TensorFlow issued them.")
          .ranged(kMemoryRange_bytes.text)
          .defaults_to("none")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            const std::string text = value.scalar();
            if (text != "none" && !text.empty() && std::isalpha(static_cast<unsigned char>(text.front()))) {
              value.fail(
                  fmt::format("'{}' is neither none nor a size{}: expected none, or a size such as 30MiB",
                              text, did_you_mean(text, {"none"})));
            }
            r.config.hardware.allreduce_combine_bytes = text == "none" ? 0 : value.memory_bytes();
          })
          .reports([](const RunConfig& c) -> nlohmann::json {
            const auto bytes = c.hardware.allreduce_combine_bytes;
            return bytes > 0 ? nlohmann::json(bytes) : nlohmann::json("none");
          }),
      policy_key(
          "hardware.overlap", mtf::overlap_policies(), &HardwareConfig::overlap, "dependencies",
          "Whether collectives overlap local compute and one another: dependencies, a collective "
          "starting as soon as its input is ready and the communication stream is free, beside the "
          "compute stream; none, one stream, every collective holding back the compute after it (the "
          "step is then the sum of every op and collective); or concurrent, a communication stream per "
          "mesh axis, so that collectives along disjoint axes run at the same time, simulated together "
          "and contending where they share links. The Mesh-TensorFlow sources do not say which the TPU "
          "runtime of 2018 did: none bounds the step from above; concurrent overlaps the most, though "
          "collectives sharing links then slow one another."),
      ConfigKey("hardware.pod_allreduce", "none, or an allreduce algorithm name",
                "An allreduce over every core of the pod (a data-parallel gradient sum whose mesh axes cover "
                "the pod) run as one collective on the torus's own axes with this algorithm, as Ying et al. "
                "(2018) sum gradients over a TPU v3 pod with their 2-D torus all-reduce (bucket2d: a "
                "reduce-scatter along core+x, an allreduce along y, an allgather back); none: such a sum "
                "runs axis by axis over the mesh's groups, with hardware.collectives' algorithms.")
          .defaults_to("none")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            std::vector<std::string> names = sim::algorithm_names(sim::CollectiveKind::allreduce);
            names.insert(names.begin(), "none");
            const std::string name = value.one_of(names);
            r.config.hardware.pod_allreduce = name == "none" ? "" : name;
          })
          .reports([](const RunConfig& c) -> nlohmann::json {
            return c.hardware.pod_allreduce.empty() ? "none" : c.hardware.pod_allreduce;
          }),
      ConfigKey("hardware.collectives", "map from mesh axis to a simulator algorithm name",
                "The simulator's algorithm for the collectives along each mesh axis, such as "
                "{batch: bidir_ring, model: ring} (tpusim collective --help lists the algorithms), or auto: "
                "per collective, the algorithm with the shortest alpha-beta estimate for its size.")
          .absent_means("the engine's default algorithm of each collective")
          .needs({"mesh.shape"})
          .with_subkeys("<mesh axis>")
          .reads([](const ConfigNode& value, ConfigReading& r) {
            // An algorithm that cannot run a collective it is asked for is found when the model is lowered
            // (training_run.cpp); RunConfig::locations points that error here.
            value.expect_map(r.config.mesh.shape.shape().names());
            const std::vector<std::string> known = collective_algorithm_names();
            for (const auto& axis : value.keys()) {
              const ConfigNode algorithm = value.child(axis);
              r.config.locations["hardware.collectives." + axis] = algorithm.where();
              r.config.hardware.collective_algorithm_by_axis[axis] = algorithm.one_of(known);
            }
          })
          .reports(
              [](const RunConfig& c) { return nlohmann::json(c.hardware.collective_algorithm_by_axis); }),
  };
  for (auto& key : rest) keys.push_back(std::move(key));
  return keys;
}

}  // namespace tpusim::workloads
