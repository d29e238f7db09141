#pragma once
// The config schema: one row per config key, the one place a key is defined. The rows drive reading a config
// (config_parser.cpp), the unknown-key errors and their suggestions, `tpusim run --schema`
// (report/schema_text.hpp), the resolved config in summary.json (resolved_config.hpp) and the keys a sweep
// may vary. The rows live in one file per section: the top-level keys in config_schema.cpp,
// hardware_keys.cpp, mesh_keys.cpp, models/model_section.cpp (model.kind) and training_keys.cpp.
//
// A model's own keys (model.layers, model.d_ff, ...) depend on its kind: they are ModelKey rows
// (models/model_section.hpp), and each kind's row in models/model_kinds.hpp lists those it takes.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workloads/config/config_node.hpp"
#include "workloads/config/key_row.hpp"
#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

// What a key's reader works on: the config's root and the RunConfig read so far, in which every key the row
// `needs` has been read.
struct ConfigReading {
  const ConfigNode& root;
  RunConfig& config;
  // The node of a key as written ("model", "mesh.layout"), to report a problem at a key other than the one
  // being read (a layout that splits model.heads unevenly is reported at model.heads); nullopt if absent.
  std::optional<ConfigNode> node(const std::string& dotted_key) const;
};

// A run config key: the common row (key_row.hpp) and what the run config needs beyond it: keys read before
// it, sections read whole, subkeys of its own and its value in the resolved config.
struct ConfigKey : KeyRow<ConfigKey, ConfigReading> {
  using Resolved = std::function<nlohmann::json(const RunConfig& config)>;

  using KeyRow::KeyRow;
  ConfigKey& needs(std::vector<std::string> keys);
  // The reader gets the whole section instead of the key's value and checks the section's keys itself,
  // because they depend on the value (model.kind decides the other model keys); `possible_keys` are all the
  // keys it may accept, for sweeps and suggestions.
  ConfigKey& reads_section(Reader reader, std::vector<std::string> possible_keys);
  // The key's keys are names of its own (hardware.collectives.<mesh axis>), checked by the reader.
  ConfigKey& with_subkeys(std::string what);
  // The resolved value in summary.json's config block, under `result_name` (default: the key's last part).
  ConfigKey& reports(Resolved resolved, std::string result_name = "");

  std::string result_field() const;  // result_name, or name()

  std::vector<std::string> dependencies;  // keys read before this one, whatever their place in the table
  Resolved resolved;
  std::string result_name;
  std::string subkeys;  // "<mesh axis>", or "" for a plain value
  bool whole_section = false;
  std::vector<std::string> section_key_names;  // whole_section: possible_keys
};

// Every row, in the order --schema lists them and messages list valid keys.
const std::vector<ConfigKey>& config_schema();
const ConfigKey* find_config_key(const std::string& dotted_key);  // nullptr if none

// The rows of each section, in their files.
std::vector<ConfigKey> hardware_keys();          // hardware_keys.cpp
std::vector<ConfigKey> layer_checkpoint_keys();  // layer_checkpoint_keys.cpp, within hardware_keys()
// What hardware.collectives accepts: the registry's algorithm names, then auto (hardware_keys.cpp).
std::vector<std::string> collective_algorithm_names();
std::vector<ConfigKey> mesh_keys();      // mesh_keys.cpp
std::vector<ConfigKey> model_keys();     // models/model_section.cpp: model.kind
std::vector<ConfigKey> training_keys();  // training_keys.cpp

// The top-level keys and sections, in row order: name, description, hardware, mesh, model, training.
std::vector<std::string> top_level_keys();
// The keys of a section in row order ("topology", "device", ...).
std::vector<std::string> section_keys(const std::string& section);

// Every dotted key a config may hold: sections, rows and every kind's model keys ("hardware",
// "hardware.topology", "model.d_ff", ...), for a sweep's `vary`; is_config_key also accepts the subkeys of
// rows that have them (hardware.collectives.batch).
std::vector<std::string> config_keys();
// A config's name when it gives none: its file's name without the extension ("lm-s5" of
// workloads/presets/lm-s5.yaml).
std::string config_file_stem(const std::string& path);
bool is_config_key(const std::string& dotted_key);
// " and hardware.collectives.<mesh axis>": the keys config_keys cannot list.
std::string config_subkeys_text();

}  // namespace tpusim::workloads
