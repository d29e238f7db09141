#pragma once
// YAML config -> RunConfig, key by key as the rows of the config schema say (config_schema.hpp; `tpusim run
// --schema` prints every key, its type, default and meaning). Unknown keys, keys given twice, wrong types,
// figures outside their plausible range, sizes that do not split evenly over their mesh axis and a mesh that
// does not cover the topology are InputErrors "file:line: dotted.key: problem". A config file is at most
// 16 MiB (topologies/support/text_file.hpp).
#include <string>

#include "workloads/config/config_schema.hpp"
#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

class ConfigNode;  // config_node.hpp

// `file` names the source in messages (a path, or "preset:NAME").
RunConfig parse_run_config(const std::string& yaml_text, const std::string& file);
RunConfig load_run_config_file(const std::string& path);  // InputError if unreadable
// The same from a tree already read (a sweep point: a base config with values substituted, which the root's
// origins locate); `yaml_text` is what RunConfig records.
RunConfig parse_run_config(const ConfigNode& root, const std::string& yaml_text);

}  // namespace tpusim::workloads
