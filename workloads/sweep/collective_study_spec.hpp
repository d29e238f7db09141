#pragma once
// A collective study's sweep file (kind: collectives): collective operations x algorithms x message sizes x
// topologies x group axes, each point one collective simulated as `tpusim collective` simulates it.
//
//   name: allreduce-torus        # optional, default: the file name without .yaml
//   description: text            # optional
//   kind: collectives
//   set:                         # optional: key -> the value every point gets
//     collective.reduce: sum
//   vary:                        # key -> non-empty list of values; the points are the cartesian product,
//     collective.op: [allreduce] # the first key varying slowest
//     collective.algorithm: [ring, bidir_ring, bucket2d, halving_doubling]
//     collective.bytes: [4KiB, 1MiB, 64MiB, 1GiB]
//     hardware.topology: [torus:4x4, torus:8x8]
//     collective.group_axes: [default]
//   output: results/allreduce-torus   # optional, default results/<name>
//
// The keys (collective_study_keys); a point that leaves one out gets what `tpusim collective` gets (the
// run config's default topology, the simulator's default network):
//   collective.op          allreduce, reduce_scatter, allgather, alltoall, broadcast, permute
//   collective.algorithm   a registry name of the op (tpusim collective --list-algorithms), one per group
//                          dimension separated by commas, or default
//   collective.bytes       per member, a multiple of 4
//   collective.group_axes  default (as tpusim collective picks: core+x,y for two-dimensional algorithms,
//                          else all), all, or axes such as core+x,y
//   collective.reduce      sum or max
//   hardware.topology      a preset or spec, torus:8x8,cores=2
//   hardware.network       ideal or lv08
// Every point is checked when the file is read, before anything runs. A value that is wrong by itself (an
// unknown op or topology, bytes not a multiple of 4) or in its point (an algorithm the point's op does not
// have, group axes the point's topology does not have) is an InputError at the value's line:
// "study.yaml:6: vary.collective.algorithm[1]: in point collective.op=alltoall, collective.algorithm=ring:
// ...". An algorithm that does not fit its point's group (bucket2d on one dimension, halving_doubling on 6
// members) is a point that is skipped, with the reason, as tpusim validate skips it.
#include <cstddef>
#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace tpusim::workloads {

struct CollectiveKey {
  const char* key;
  std::string default_value;  // taken from where it is defined: tpusim collective's, the run config's
};
// In the order above.
const std::vector<CollectiveKey>& collective_study_keys();
// Indices into collective_study_keys() and CollectiveStudySpec::point_spec.
enum CollectiveKeyIndex { kOp, kAlgorithm, kBytes, kGroupAxes, kReduce, kTopology, kNetwork, kKeyCount };

// What checking a point found.
struct CollectivePointFacts {
  std::string hash;          // Study::point_hash
  std::string skip_reason;   // non-empty when its algorithm does not fit its group
  std::size_t topology = 0;  // into CollectiveStudySpec::topologies
};

struct CollectiveStudySpec {
  std::string name;
  std::string description;
  std::string source;      // the file
  std::string output_dir;  // results/<name> unless given
  // The varied keys in file order, each with its values as written.
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;
  std::vector<std::pair<std::string, std::string>> settings;  // set, as written
  std::size_t points = 0;
  std::vector<CollectivePointFacts> facts;  // per point
  std::vector<topo::Topology> topologies;   // each distinct hardware.topology once

  // The point's value of each varied key (the point index taken apart, the first key slowest).
  std::vector<std::string> point_values(std::size_t point) const;
  // The point's value of every key of collective_study_keys(), in that order: varied, set or default.
  std::vector<std::string> point_spec(std::size_t point) const;
};

// Reads the file and checks every value and point. InputError at the line of the value at fault.
CollectiveStudySpec parse_collective_study_spec(const std::string& yaml_text, const std::string& file);

}  // namespace tpusim::workloads
