#pragma once
// YAML splits a flow collection ([...] or {...}) at every comma outside quotes: `[torus:4x4,cores=2,
// torus:8x8,cores=2]` is four items, and `{hardware.topology: torus:4x4,cores=2}` a key `cores=2` without a
// value. Left alone, the pieces surface later as a repeated value or an unknown key, far from the cause.
#include <yaml-cpp/yaml.h>

#include <string>

namespace tpusim::workloads {

// Throws InputError "file:line: path: '<piece>' is a piece of the topology spec '<spec>' ... quote specs that
// contain commas" when a flow list or map of `node` (not its children) holds a plain `key=value` piece of a
// topology spec (topo::topology_spec_keys) right after a value it continues. `path` is node's dotted key.
void check_comma_split(const YAML::Node& node, const std::string& file, const std::string& path);

}  // namespace tpusim::workloads
