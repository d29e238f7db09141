#pragma once
// A sweep: one base config and the values its points give config keys, read from YAML.
//
//   base: lm-s5
//   set:
//     model.batch: {per: batch, value: 16}
//   vary:
//     mesh.shape: [batch:*;model:1, from_mapping]
//     mesh.mapping: [rings, model=core+x;batch=y]
//     hardware.topology: [tpu-v2-32, tpu-v2-pod]
//     model: [{kind: mlp, ...}, {...}]  # a whole section is a key too
//   zip:
//     - [mesh.shape, mesh.mapping]
//   points:
//     - {hardware.topology: tpu-v2-128, mesh.shape: batch:8;model:16}
//   exclude:
//     - {mesh.shape: from_mapping, hardware.topology: tpu-v2-32}
//
// The file's keys are rows (study_file.hpp: their types, defaults and meanings; `tpusim sweep --schema`
// lists them); the keys the sections give are the run config's (`tpusim run --schema`).
//
// The points, in order:
//   - the product of vary's lists, in file order with the first key varying slowest (like nested loops): for
//     vary: {a: [a0, a1], b: [b0, b1]} the points are (a0,b0), (a0,b1), (a1,b0), (a1,b1). A zip group is one
//     factor of the product, standing where its first key is: its lists (all as long) advance together, so
//     vary: {a: [a0, a1], b: [b0, b1], c: [c0, c1]} with zip: [[a, c]] gives (a0,b0,c0), (a0,b1,c0),
//     (a1,b0,c1), (a1,b1,c1);
//   - then the listed points, in file order; a listed point keeps the base's value of every key it leaves
//   out;
//   - less those an exclude entry matches (values are compared as written, a key the point leaves out by
//     the base's value as written), numbered again from 0.
// Without vary the points are the listed ones. set's keys are in every point; a key is set or varied, not
// both, and no key may be a section another key is inside of (model and model.d_ff).
//
// Every point is resolved exactly as `tpusim run` resolves a config (parse_run_config) when the sweep is
// loaded, before anything runs. A problem is an InputError "sweep.yaml:LINE: vary.KEY[I]: problem" at the
// value that caused it (I counts from 0; "points[P].KEY" and "set.KEY" for those sections); a problem the
// value causes elsewhere in the base config quotes that location too: "sweep.yaml:7: vary.mesh.shape[2]:
// lm.yaml:10: model.d_ff: ...". Problems of the sweep file itself are errors too, each at its line: an
// unknown key; a key that is not a config key; a zip group naming a key not in vary, or lists of different
// lengths; a value or a zip position given twice, or a listed point equal to another point; a filter naming
// a key that is not varied, or matching no point; a sweep whose every point is excluded.
#include <string>
#include <vector>

#include "workloads/config/config_layers.hpp"
#include "workloads/config/run_config.hpp"
#include "workloads/sweep/sweep_points.hpp"

namespace tpusim::workloads {

struct SweepPoint {
  int index = 0;                                                   // 0-based, in sweep order
  std::vector<std::string> values;                                 // one per axis, as SweepAxis::values
  RunConfig config;                                                // resolved
  std::string describe(const std::vector<SweepAxis>& axes) const;  // "mesh.shape=batch:8;model:64, ..."
};

// "mesh.shape=batch:8;model:64, model.d_ff=1024" (empty values left out)
std::string describe_values(const std::vector<SweepAxis>& axes, const std::vector<std::string>& values);

// A value every point gets (set).
struct SweepSetting {
  std::string key;
  std::string value;  // as written
};

struct Sweep {
  std::string name;
  std::string description;
  std::string source;           // the sweep file, or workloads/sweeps/NAME.yaml for a shipped sweep
  std::string base;             // as written: a preset name or a path
  std::string base_source;      // the base config's file (the preset's workloads/presets/NAME.yaml)
  std::string output_dir;       // results/<name> unless given
  std::vector<SweepAxis> axes;  // the varied keys: vary's, then those only listed points give
  std::vector<SweepSetting> settings;
  std::vector<std::vector<std::string>> zip_groups;
  int product_points = 0;  // of vary, before exclude
  int listed_points = 0;   // of points, before exclude
  int excluded_points = 0;
  std::vector<SweepPoint> points;
  // How the points were made, for reports: "cartesian product, the first key varying slowest" for a sweep
  // with vary only, and what zip, points and exclude add to that.
  std::string order() const;
};

// At most this many points (a product grows fast; each point is a simulation).
constexpr int kMaxSweepPoints = 10000;

// `file` names the sweep in messages and anchors a relative base path.
// `sets`: the command line's --set values, applied to every point as the sweep's `set` is.
Sweep parse_sweep(const std::string& yaml_text, const std::string& file,
                  const std::vector<ConfigSetting>& sets = {});
Sweep load_sweep_file(const std::string& path);  // InputError if unreadable

}  // namespace tpusim::workloads
