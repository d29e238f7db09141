#include "topologies/multislice.hpp"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "topologies/presets.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/units.hpp"

namespace tpusim::topo {
namespace {

// Austin et al., How to Scale Your Model (2025), TPU chapter (https://jax-ml.github.io/scaling-book/tpus/):
// "DCN bandwidth is typically around 2.5e10 bytes / second per host", and a host drives 4x2 = 8 chips on
// v5e and v6e (and v3), 2x2x1 = 4 on v5p and v4 (the chapter's table of host sizes). tpusim gives each chip
// its share of its host's NIC, each way (the figure is taken as full duplex): 3.125 GB/s per v5e/v6e chip,
// 6.25 GB/s per v4/v5p chip. Slices of other kinds (kind:dims specs, v2) take the 8-chip host.
constexpr double kMultisliceHostDcn_Bps = 2.5e10;
constexpr int kMultisliceChipsPerHostV4V5p = 4;
constexpr int kMultisliceChipsPerHostOther = 8;
// No public source gives the latency of a DCN transfer between TPU hosts; 10 us from NIC to NIC is our
// assumption (a data-centre one-way trip plus the hosts' stacks), a setting: dcn_lat=.
constexpr double kMultisliceDcnLatency_s = 10e-6;

const std::vector<std::string>& multislice_keys() {
  static const std::vector<std::string> keys = {"dcn_bw", "dcn_lat"};
  return keys;
}

struct MultislicePreset {
  const char* name;
  int slices;
  const char* slice;
};

// Slices of the two pods Google Cloud sells for multislice training with their DCN figures above: the v5e pod
// (16x16) and the v5p cube (4x4x4, the smallest slice that wraps around on every axis).
const std::vector<MultislicePreset>& multislice_table() {
  static const std::vector<MultislicePreset> entries = {
      {"tpu-v5e-256-x2", 2, "tpu-v5e-256"},   {"tpu-v5e-256-x4", 4, "tpu-v5e-256"},
      {"tpu-v5e-256-x8", 8, "tpu-v5e-256"},   {"tpu-v5p-cube-x2", 2, "tpu-v5p-cube"},
      {"tpu-v5p-cube-x4", 4, "tpu-v5p-cube"}, {"tpu-v5p-cube-x8", 8, "tpu-v5p-cube"},
  };
  return entries;
}

const MultislicePreset& multislice_entry(const std::string& name) {
  for (const auto& entry : multislice_table()) {
    if (name == entry.name) return entry;
  }
  throw InputError(fmt::format("unknown multislice preset '{}'{}; valid ones are {}", name,
                               did_you_mean(name, multislice_preset_names()),
                               join(multislice_preset_names())));
}

// The text from "multislice:" to the first ',' outside parentheses, and what follows it.
std::pair<std::string, std::string> split_multislice_base(const std::string& spec) {
  int depth = 0;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    if (spec[i] == '(') ++depth;
    if (spec[i] == ')') --depth;
    if (spec[i] == ',' && depth == 0) return {spec.substr(0, i), spec.substr(i + 1)};
  }
  return {spec, ""};
}

}  // namespace

bool is_multislice_spec(const std::string& spec) { return spec.rfind(kMultislicePrefix, 0) == 0; }

LinkParams default_dcn(const Topology& slice) {
  const std::string& name = slice.name();
  const bool four_chip_host = name.rfind("tpu-v5p", 0) == 0 || name.rfind("tpu-v4", 0) == 0;
  const int chips = four_chip_host ? kMultisliceChipsPerHostV4V5p : kMultisliceChipsPerHostOther;
  return LinkParams(kMultisliceHostDcn_Bps / chips, kMultisliceDcnLatency_s);
}

Topology multislice_from_spec(const std::string& spec) {
  const auto fail = [&spec](const std::string& problem) {
    return InputError(fmt::format("topology '{}': {}", spec, problem));
  };
  const std::string form = "expected multislice:<N>x<preset> or multislice:<N>x(<kind>:<dims>)";
  if (!is_multislice_spec(spec)) throw fail(form);
  auto [base, rest] = split_multislice_base(spec);
  const std::string body = base.substr(std::string(kMultislicePrefix).size());
  const auto x = body.find('x');
  if (body.empty() || x == std::string::npos || x == 0) throw fail(form);
  int slices = 0;
  try {
    slices = static_cast<int>(parse_whole_number(body.substr(0, x), 2, kMaxChips));
  } catch (const InputError&) {
    throw fail(
        fmt::format("slice count '{}' must be a whole number from 2 to {}", body.substr(0, x), kMaxChips));
  }
  std::string slice = body.substr(x + 1);
  if (slice.empty()) throw fail("no slice after '" + body.substr(0, x + 1) + "'; " + form);
  if (slice.front() == '(') {
    if (slice.back() != ')' || slice.size() < 3)
      throw fail("'" + slice + "' opens a parenthesis it does not close at its end; " + form);
    slice = slice.substr(1, slice.size() - 2);
    if (slice.find_first_of("(),") != std::string::npos)
      throw fail("'" + slice + "': a slice in parentheses is one kind:dims (keys go after it, outside)");
    if (slice.find(':') == std::string::npos)
      throw fail("'(" + slice + ")': parentheses hold a kind:dims spec; write a preset without them");
  } else if (slice.find_first_of("():") != std::string::npos) {
    throw fail("'" + slice + "': a kind:dims slice goes in parentheses, e.g. multislice:2x(torus:8x8)");
  }
  if (is_multislice_spec(slice)) throw fail("a slice cannot itself be multislice");
  if (!rest.empty() && rest.back() == ',') throw fail("trailing ','; expected key=value after it");
  if (spec.back() == ',') throw fail("trailing ','; expected key=value after it");
  // The DCN keys are this file's; the others go to the slice's own spec.
  std::optional<double> dcn_bw, dcn_lat;
  std::string slice_spec = slice;
  std::set<std::string> given;
  for (const auto& part : rest.empty() ? std::vector<std::string>{} : split(rest, ',')) {
    const auto eq = part.find('=');
    const std::string key = part.substr(0, eq);
    if (key.rfind("twist_", 0) == 0) throw fail(key + ": twists are not modelled on a multislice pod");
    if (key != "dcn_bw" && key != "dcn_lat") {
      slice_spec += "," + part;
      continue;
    }
    if (eq == std::string::npos) throw fail("'" + part + "' is not key=value");
    if (!given.insert(key).second) throw fail("key '" + key + "' is given twice");
    try {
      if (key == "dcn_bw") dcn_bw = parse_bandwidth_Bps(part.substr(eq + 1));
      if (key == "dcn_lat") dcn_lat = parse_latency_s(part.substr(eq + 1));
    } catch (const InputError& error) {
      throw fail(key + ": " + error.what());
    }
  }
  std::optional<Topology> one;
  try {
    one = topology_from_spec(slice_spec);
  } catch (const InputError& error) {
    const std::string what = error.what();
    // The slice's own message names the slice's spec; restate it against the spec the user wrote.
    const std::string prefix = "topology '" + slice_spec + "': ";
    const std::string problem = what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
    throw fail("slice: " + problem +
               (slice_spec == slice ? "" : "; multislice keys are " + join(multislice_keys())));
  }
  const LinkParams fallback = default_dcn(*one);
  return one->as_multislice(
      spec, slices,
      LinkParams(dcn_bw.value_or(fallback.bandwidth_Bps()), dcn_lat.value_or(fallback.latency_s())));
}

std::vector<std::string> multislice_preset_names() {
  std::vector<std::string> names;
  for (const auto& entry : multislice_table()) names.push_back(entry.name);
  return names;
}

bool is_multislice_preset(const std::string& name) {
  for (const auto& entry : multislice_table()) {
    if (name == entry.name) return true;
  }
  return false;
}

Topology multislice_preset(const std::string& name) {
  const MultislicePreset& entry = multislice_entry(name);
  const Topology slice = preset(entry.slice);
  return slice.as_multislice(entry.name, entry.slices, default_dcn(slice));
}

std::string multislice_preset_spec(const std::string& name) {
  const MultislicePreset& entry = multislice_entry(name);
  return fmt::format("{}{}x{}", kMultislicePrefix, entry.slices, entry.slice);
}

std::string multislice_preset_description(const std::string& name) {
  const MultislicePreset& entry = multislice_entry(name);
  const Topology pod = multislice_preset(name);
  return fmt::format("{} slices of {} joined by the data-centre network, {} per chip each way ({} chips)",
                     entry.slices, entry.slice, format_bandwidth(pod.dcn().bandwidth_Bps()), pod.num_chips());
}

}  // namespace tpusim::topo
