#pragma once
// A collective study's sweep file (kind: collectives): collective operations x algorithms x message sizes x
// topologies x group axes, each point one collective simulated as `tpusim collective` simulates it.
//
//   kind: collectives
//   set:
//     collective.reduce: sum
//   vary:
//     collective.op: [allreduce]
//     collective.algorithm: [all]
//     collective.bytes: [4KiB, 1MiB, 64MiB, 1GiB]
//     hardware.topology: [torus:4x4, torus:8x8]
//
// The file's keys are rows (study_file.hpp) and so are the keys its points give (collective_study_keys(),
// below); `tpusim sweep --schema` lists both with their types and defaults. The sections are a training
// sweep's (sweep_sections.hpp, sweep_points.hpp: the same product, zip groups, listed points and filters, and
// the same errors); only the keys differ.
// Every point is checked when the file is read, before anything runs. A value that is wrong by itself (an
// unknown op or topology, bytes not a multiple of 4) or in its point (an algorithm the point's op does not
// have, group axes the point's topology does not have) is an InputError at the value's line:
// "study.yaml:6: vary.collective.algorithm[1]: in point collective.op=alltoall, collective.algorithm=ring:
// ...". An algorithm that does not fit its point's group (bucket2d on one dimension, halving_doubling on 6
// members) is a point that is skipped, with the reason, as tpusim validate skips it.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "topologies/topology.hpp"
#include "workloads/config/key_row.hpp"
#include "workloads/sweep/study_file.hpp"
#include "workloads/sweep/sweep_points.hpp"

namespace tpusim::workloads {

// A collective key's reader checks the value by itself (InputError); what needs the rest of the point is the
// study's to check. Its default is tpusim collective's (or the run config's, for the topology).
struct CollectiveValueCheck {};
using CollectiveKey = PlainKeyRow<CollectiveValueCheck>;
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

// A point as a study lists it, before it is checked: its value of each varied key.
using CollectivePointValues = std::vector<std::string>;

struct CollectiveStudySpec {
  StudyHeader header;
  std::vector<SweepAxis> axes;  // the varied keys, each with the values its points take
  std::vector<std::pair<std::string, std::string>> settings;  // set, as written
  std::string order;                                          // how the points were made, for sweep.json
  std::vector<CollectivePointValues> points;                  // per point, one value per axis
  std::vector<CollectivePointFacts> facts;                    // per point
  std::vector<topo::Topology> topologies;                     // each distinct hardware.topology once

  std::size_t size() const { return points.size(); }
  std::vector<std::string> keys() const;
  // The point's value of every key of collective_study_keys(), in that order: varied, set or default.
  std::vector<std::string> point_spec(std::size_t point) const;
};

// The word for every registry row of the point's op, as a value of collective.algorithm.
inline constexpr const char* kEveryAlgorithm = "all";

// Reads the file and checks every value and point. InputError at the line of the value at fault.
CollectiveStudySpec parse_collective_study_spec(const std::string& yaml_text, const std::string& file);

// A study made by a program rather than a file (tpusim validate's): the points' values of the varied keys
// `keys`, checked as a file's would be (InputError naming the point when a value is wrong). A point that
// makes the same run as an earlier one (the same hash: written otherwise, such as default group axes that
// resolve to the ones another point names) is left out, so that the program may list every combination.
CollectiveStudySpec make_collective_study(StudyHeader header, const std::vector<std::string>& keys,
                                          const std::vector<CollectivePointValues>& points);

}  // namespace tpusim::workloads
