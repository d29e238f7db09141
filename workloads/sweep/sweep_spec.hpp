#pragma once
// A sweep: one base config and values to vary, read from YAML. Its points are the cartesian product of the
// value lists, in file order with the first key varying slowest (like nested loops): for
// vary: {a: [a0, a1], b: [b0, b1]} the points are (a0,b0), (a0,b1), (a1,b0), (a1,b1).
//
//   name: lm-s5-mesh            # optional, default: the file name without .yaml
//   description: text           # optional
//   base: lm-s5                 # a preset name, or a config file (a path relative to the sweep file)
//   vary:                       # dotted config key (tpusim run --schema) -> non-empty list of values
//     mesh.shape: [batch:32;model:16, batch:16;model:32]
//     model.d_ff: [65536, 262144]
//     model: [{kind: mlp, ...}, {...}]  # a whole section is a key too
//   output: results/lm-s5-mesh  # optional, default results/<name>
//
// Every point is resolved exactly as `tpusim run` resolves a config (parse_run_config) when the sweep is
// loaded, before anything runs. A problem is an InputError "sweep.yaml:LINE: vary.KEY[I]: problem" at the
// value that caused it (I counts from 0); a problem the value causes elsewhere in the base config quotes
// that location too: "sweep.yaml:7: vary.mesh.shape[2]: lm.yaml:10: model.d_ff: ...".
#include <string>
#include <vector>

#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

struct SweepAxis {
  std::string key;                  // dotted config key, "mesh.shape"
  std::vector<std::string> values;  // as written (flow YAML for lists and maps)
};

struct SweepPoint {
  int index = 0;                                                   // 0-based, in product order
  std::vector<std::string> values;                                 // one per axis
  RunConfig config;                                                // resolved
  std::string describe(const std::vector<SweepAxis>& axes) const;  // "mesh.shape=batch:8;model:64, ..."
};

// "mesh.shape=batch:8;model:64, model.d_ff=1024"
std::string describe_values(const std::vector<SweepAxis>& axes, const std::vector<std::string>& values);

struct Sweep {
  std::string name;
  std::string description;
  std::string source;       // the sweep file, or workloads/sweeps/NAME.yaml for a shipped sweep
  std::string base;         // as written: a preset name or a path
  std::string base_source;  // the base config's file (the preset's workloads/presets/NAME.yaml)
  std::string output_dir;   // results/<name> unless given
  std::vector<SweepAxis> axes;
  std::vector<SweepPoint> points;
};

// At most this many points (a product grows fast; each point is a simulation).
constexpr int kMaxSweepPoints = 10000;

// `file` names the sweep in messages and anchors a relative base path.
Sweep parse_sweep(const std::string& yaml_text, const std::string& file);
Sweep load_sweep_file(const std::string& path);  // InputError if unreadable

}  // namespace tpusim::workloads
