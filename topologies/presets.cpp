#include "topologies/presets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "topologies/multislice.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::topo {
namespace {

// Jouppi et al. (CACM 2020): 496 Gbit/s (v2) and 656 Gbit/s (v3) per inter-chip link. The per-hop latency and
// the on-chip core-to-core figures are not published; 1 us per hop and half the HBM bandwidth on chip are our
// assumptions, overridable with lat= / intra_bw= / intra_lat=.
const LinkParams kV2Link(496e9 / 8, 1e-6);
const LinkParams kV3Link(656e9 / 8, 1e-6);
const LinkParams kV2OnChip(350e9, 0.5e-6);
const LinkParams kV3OnChip(450e9, 0.5e-6);
// TPU v4 (Jouppi et al., ISCA 2023): 2 TensorCores per chip, 6 ICI links forming a 3D torus of 4x4x4 cubes,
// up to 4096 chips. Each link carries 400 Gbit/s each way (G. Lockwood's TPUv4 notes, from Google's ICI
// description), which the Cloud TPU v4 page's 24 TB/s bisection of the 16x16x16 pod agrees with (2 x 256
// links cut x 50 GB/s = 25.6 TB/s). The hop latency and the on-chip figure (half of the 1200 GB/s HBM) are
// assumptions as for v2 and v3.
const LinkParams kV4Link(400e9 / 8, 1e-6);
const LinkParams kV4OnChip(600e9, 0.5e-6);
// TPU v5e, v5p and v6e (Trillium) from Google Cloud's pages (https://docs.cloud.google.com/tpu/docs/v5e,
// /v5p, /v6e), which give each chip's bidirectional ICI bandwidth; the figure per link and direction is
// derived: per chip / links per chip / 2 directions. The hop latency stays our 1 us assumption (lat=). v5e:
// 400 GB/s per chip over 4 ICI ports: 50 GB/s (400 Gbit/s) each way. An earlier version of the page gave 1600
// Gbit/s per chip, the same 4 x 400 Gbit/s one way; its pod figures agree: bisection 1.6 TB/s = the 16x16
// torus's 32 links cut x 50 GB/s, all-reduce 51.2 TB/s = 256 chips x 4 links x 50 GB/s.
const LinkParams kV5eLink(400e9 / 4 / 2, 1e-6);
// v6e: 800 GB/s per chip over 4 ICI ports: 100 GB/s (800 Gbit/s) each way (earlier versions: 3200 Gbit/s per
// chip one way; one said 3584, which its own 3.2 TB/s bisection = 32 links x 100 GB/s contradicts).
const LinkParams kV6eLink(800e9 / 4 / 2, 1e-6);
// v5p: 1200 GB/s per chip (4800 Gbit/s one way in an earlier version); the page's 3D torus gives a chip 6
// links, 2 per dimension ("connected to the nearest 6 neighbors": Austin et al., How to Scale Your Model,
// 2025, https://jax-ml.github.io/scaling-book/tpus/), so 100 GB/s (800 Gbit/s) each way.
const LinkParams kV5pLink(1200e9 / 6 / 2, 1e-6);
// These presets have one core per chip (the device is the chip, or v5p's megacore: mesh_tf/device_model.cpp),
// so no on-chip link carries data; a spec's cores= would use this one: half the chip's HBM bandwidth (819,
// 2765 and 1638 GB/s) and 0.5 us, the assumption of v2 to v4.
const LinkParams kV5eOnChip(819e9 / 2, 0.5e-6);
const LinkParams kV5pOnChip(2765e9 / 2, 0.5e-6);
const LinkParams kV6eOnChip(1638e9 / 2, 0.5e-6);
// Which slices wrap around (Austin et al., TPU chapter): on v5e and v6e only an axis of 16 chips does
// ("smaller topologies can be requested without wraps on dims < 16"), so the 4x4 slices are meshes; on v5p
// the optical switches that close the wraparounds join whole 4x4x4 cubes, so a slice of whole cubes wraps on
// every axis and the presets are such slices. v5p's largest slice is 16x16x24 (the Cloud page); the pod's
// 8960 chips (the Cloud page) are 16x20x28 = 140 cubes (Austin et al.'s shape).

struct PresetEntry {
  const char* name;
  const char* description;
  std::vector<int> chip_dims;
  bool wraparound;
  int cores_per_chip;
  LinkParams inter_chip;
  LinkParams intra_chip;
  std::vector<Twist> twists = {};
};

const std::vector<PresetEntry>& table() {
  static const std::vector<PresetEntry> entries = {
      {"tpu-v2-pod",
       "TPU v2 pod: 16x16 chip 2D torus, 2 cores per chip (512 cores)",
       {16, 16},
       true,
       2,
       kV2Link,
       kV2OnChip},
      {"tpu-v3-pod",
       "TPU v3 pod: 32x32 chip 2D torus, 2 cores per chip (2048 cores)",
       {32, 32},
       true,
       2,
       kV3Link,
       kV3OnChip},
      {"tpu-v2-32",
       "TPU v2 slice: 4x4 chip torus, 2 cores per chip (32 cores)",
       {4, 4},
       true,
       2,
       kV2Link,
       kV2OnChip},
      {"tpu-v2-128",
       "TPU v2 slice: 8x8 chip torus, 2 cores per chip (128 cores)",
       {8, 8},
       true,
       2,
       kV2Link,
       kV2OnChip},
      {"tpu-v4-cube",
       "TPU v4 cube: 4x4x4 chip 3D torus, 2 cores per chip (128 cores)",
       {4, 4, 4},
       true,
       2,
       kV4Link,
       kV4OnChip},
      {"tpu-v4-4x4x8",
       "TPU v4 slice: 4x4x8 chip 3D torus, 2 cores per chip (256 cores)",
       {4, 4, 8},
       true,
       2,
       kV4Link,
       kV4OnChip},
      {"tpu-v4-4x4x8-twisted",
       "TPU v4 twisted slice: 4x4x8 chips, the x and y wraparounds shifted 4 along z (256 cores)",
       {4, 4, 8},
       true,
       2,
       kV4Link,
       kV4OnChip,
       {{0, 2, 4}, {1, 2, 4}}},
      // Slices of the pod that the Cloud TPU v4 page names as 3D tori (2A=B=C or 2A=2B=C, each a multiple
      // of 4): 256 and 1024 chips, the sizes of the pod-scaling studies.
      {"tpu-v4-4x8x8",
       "TPU v4 slice: 4x8x8 chip 3D torus, 2 cores per chip (512 cores)",
       {4, 8, 8},
       true,
       2,
       kV4Link,
       kV4OnChip},
      {"tpu-v4-8x8x16",
       "TPU v4 slice: 8x8x16 chip 3D torus, 2 cores per chip (2048 cores)",
       {8, 8, 16},
       true,
       2,
       kV4Link,
       kV4OnChip},
      {"tpu-v4-pod",
       "TPU v4 pod: 16x16x16 chip 3D torus, 2 cores per chip (8192 cores)",
       {16, 16, 16},
       true,
       2,
       kV4Link,
       kV4OnChip},
      {"tpu-v5e-16",
       "TPU v5e slice: 4x4 chips without wraparound (a mesh), 1 core per chip (16 cores)",
       {4, 4},
       false,
       1,
       kV5eLink,
       kV5eOnChip},
      {"tpu-v5e-256",
       "TPU v5e pod: 16x16 chip 2D torus, 1 core per chip (256 cores)",
       {16, 16},
       true,
       1,
       kV5eLink,
       kV5eOnChip},
      {"tpu-v5p-cube",
       "TPU v5p cube: 4x4x4 chip 3D torus, 1 megacore per chip (64 cores)",
       {4, 4, 4},
       true,
       1,
       kV5pLink,
       kV5pOnChip},
      {"tpu-v5p-8x8x8",
       "TPU v5p slice: 8x8x8 chip 3D torus, 1 megacore per chip (512 cores)",
       {8, 8, 8},
       true,
       1,
       kV5pLink,
       kV5pOnChip},
      // Whole-cube slices of the Cloud page's table of v5p shapes: 256, 1024, 2048 and 4096 chips.
      {"tpu-v5p-4x8x8",
       "TPU v5p slice: 4x8x8 chip 3D torus, 1 megacore per chip (256 cores)",
       {4, 8, 8},
       true,
       1,
       kV5pLink,
       kV5pOnChip},
      {"tpu-v5p-8x8x16",
       "TPU v5p slice: 8x8x16 chip 3D torus, 1 megacore per chip (1024 cores)",
       {8, 8, 16},
       true,
       1,
       kV5pLink,
       kV5pOnChip},
      {"tpu-v5p-8x16x16",
       "TPU v5p slice: 8x16x16 chip 3D torus, 1 megacore per chip (2048 cores)",
       {8, 16, 16},
       true,
       1,
       kV5pLink,
       kV5pOnChip},
      {"tpu-v5p-16x16x16",
       "TPU v5p slice: 16x16x16 chip 3D torus, 1 megacore per chip (4096 cores)",
       {16, 16, 16},
       true,
       1,
       kV5pLink,
       kV5pOnChip},
      {"tpu-v5p-16x16x24",
       "TPU v5p largest slice: 16x16x24 chip 3D torus, 1 megacore per chip (6144 cores)",
       {16, 16, 24},
       true,
       1,
       kV5pLink,
       kV5pOnChip},
      {"tpu-v5p-pod",
       "TPU v5p pod: 16x20x28 chip 3D torus, 1 megacore per chip (8960 cores)",
       {16, 20, 28},
       true,
       1,
       kV5pLink,
       kV5pOnChip},
      {"tpu-v6e-16",
       "TPU v6e (Trillium) slice: 4x4 chips without wraparound (a mesh), 1 core per chip (16 cores)",
       {4, 4},
       false,
       1,
       kV6eLink,
       kV6eOnChip},
      {"tpu-v6e-256",
       "TPU v6e (Trillium) pod: 16x16 chip 2D torus, 1 core per chip (256 cores)",
       {16, 16},
       true,
       1,
       kV6eLink,
       kV6eOnChip},
      {"ring-8", "8 single-core chips on a ring", {8}, true, 1, kV2Link, kV2OnChip},
      {"torus-4x4", "4x4 torus of single-core chips", {4, 4}, true, 1, kV2Link, kV2OnChip},
      {"torus-8x8", "8x8 torus of single-core chips", {8, 8}, true, 1, kV2Link, kV2OnChip},
      {"torus-4x4x4", "4x4x4 3D torus of single-core chips", {4, 4, 4}, true, 1, kV2Link, kV2OnChip},
      {"mesh-4x4", "4x4 mesh without wraparound, single-core chips", {4, 4}, false, 1, kV2Link, kV2OnChip},
  };
  return entries;
}

std::vector<int> parse_dims(const std::string& spec, const std::string& text) {
  std::vector<int> dims;
  for (const auto& part : split(text, 'x')) {
    try {
      dims.push_back(static_cast<int>(parse_whole_number(part, 1, std::numeric_limits<int>::max())));
    } catch (const InputError&) {
      throw InputError(
          fmt::format("topology '{}': '{}' is not a list of sizes such as 16x16 or 4x4x4", spec, text));
    }
  }
  return dims;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& entry : table()) names.push_back(entry.name);
  return names;
}

namespace {

const PresetEntry& entry_of(const std::string& name) {
  for (const auto& entry : table()) {
    if (name == entry.name) return entry;
  }
  throw InputError(
      fmt::format("unknown topology preset '{}'{}; valid presets are {} (or a spec such as "
                  "torus:8x8,cores=2)",
                  name, did_you_mean(name, preset_names()), join(preset_names())));
}

}  // namespace

Topology preset(const std::string& name) {
  if (is_multislice_preset(name)) return multislice_preset(name);
  const PresetEntry& entry = entry_of(name);
  const Topology topology(entry.name, entry.chip_dims, entry.wraparound, entry.cores_per_chip,
                          entry.inter_chip, entry.intra_chip);
  return entry.twists.empty() ? topology : topology.with_twists(entry.twists);
}

std::string preset_description(const std::string& name) {
  if (is_multislice_preset(name)) return multislice_preset_description(name);
  return entry_of(name).description;
}

const std::vector<std::string>& topology_spec_keys() {
  static const std::vector<std::string> keys = {"cores",     "bw",      "lat",     "intra_bw",
                                                "intra_lat", "twist_x", "twist_y", "twist_z"};
  return keys;
}

// spec := base ( ',' key '=' value )*
// base := preset-name | kind ':' dims      kind := ring | line | torus | mesh     dims := N ('x' N)*
// keys: cores, bw, lat, intra_bw, intra_lat, twist_x, twist_y, twist_z (twist.hpp)
// or a multislice pod: "multislice:" N "x" slice, see multislice.hpp
Topology topology_from_spec(const std::string& spec) {
  if (is_multislice_spec(spec)) return multislice_from_spec(spec);
  const auto parts = split(spec, ',');
  if (parts.empty() || parts[0].empty()) throw InputError("topology: empty specification");
  if (spec.back() == ',')
    throw InputError(fmt::format("topology '{}': trailing ','; expected key=value after it", spec));
  const std::string& base = parts[0];
  if (is_multislice_preset(base)) {
    return parts.size() == 1 ? preset(base)
                             : multislice_from_spec(multislice_preset_spec(base) + spec.substr(base.size()));
  }
  std::optional<Topology> topology;
  const auto colon = base.find(':');
  if (colon == std::string::npos) {
    topology = preset(base);
  } else {
    const std::string kind = base.substr(0, colon);
    const auto dims = parse_dims(spec, base.substr(colon + 1));
    const bool wrap = kind == "ring" || kind == "torus";
    if (kind != "ring" && kind != "line" && kind != "torus" && kind != "mesh") {
      throw InputError(fmt::format(
          "topology '{}': unknown kind '{}'; valid kinds are ring, line, torus, mesh", spec, kind));
    }
    if ((kind == "ring" || kind == "line") && dims.size() != 1) {
      throw InputError(fmt::format("topology '{}': a {} has one dimension", spec, kind));
    }
    topology = Topology(base, dims, wrap, 1, kV2Link, kV2OnChip);
  }
  int cores = topology->cores_per_chip();
  double bw = topology->inter_chip().bandwidth_Bps(), lat = topology->inter_chip().latency_s();
  double intra_bw = topology->intra_chip().bandwidth_Bps(), intra_lat = topology->intra_chip().latency_s();
  const std::vector<std::string>& keys = topology_spec_keys();
  std::vector<Twist> twists = topology->twists();
  std::set<std::string> given;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    const std::string key = parts[i].substr(0, eq);
    if (eq == std::string::npos) {
      throw InputError(
          fmt::format("topology '{}': '{}' is not key=value; keys are {}", spec, parts[i], join(keys)));
    }
    const std::string value = parts[i].substr(eq + 1);
    if (std::find(keys.begin(), keys.end(), key) != keys.end() && !given.insert(key).second) {
      throw InputError(fmt::format("topology '{}': key '{}' is given twice", spec, key));
    }
    try {
      if (key == "cores") {
        cores = static_cast<int>(parse_whole_number(value, 1, kMaxCoresPerChip));
      } else if (key == "bw") {
        bw = parse_bandwidth_Bps(value);
      } else if (key == "lat") {
        lat = parse_latency_s(value);
      } else if (key == "intra_bw") {
        intra_bw = parse_bandwidth_Bps(value);
      } else if (key == "intra_lat") {
        intra_lat = parse_latency_s(value);
      } else if (key.rfind("twist_", 0) == 0 && std::find(keys.begin(), keys.end(), key) != keys.end()) {
        const int dimension = key.back() - 'x';
        const int dims = static_cast<int>(topology->chip_dims().size());
        if (dimension >= dims) {
          throw InputError(fmt::format("topology '{}': {}: the pod has {} dimension{}", spec, key, dims,
                                       dims == 1 ? "" : "s"));
        }
        twists.erase(std::remove_if(twists.begin(), twists.end(),
                                    [&](const Twist& twist) { return twist.dimension == dimension; }),
                     twists.end());
        twists.push_back(parse_twist(dimension, value, dims, spec));
      } else {
        throw InputError(fmt::format("topology '{}': unknown key '{}'{}; keys are {}", spec, key,
                                     did_you_mean(key, keys), join(keys)));
      }
    } catch (const InputError& error) {
      if (std::string(error.what()).rfind("topology", 0) == 0) throw;
      throw InputError(fmt::format("topology '{}': {}: {}", spec, key, error.what()));
    }
  }
  const Topology result(topology->name() == base ? spec : topology->name(), topology->chip_dims(),
                        topology->wraparound(), cores, LinkParams(bw, lat), LinkParams(intra_bw, intra_lat));
  return twists.empty() ? result : result.with_twists(twists);
}

}  // namespace tpusim::topo
