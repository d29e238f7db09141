#pragma once
// `tpusim sweep merge OUT DIR...`: joins the output folders of a sweep's shards (sweep_shard.hpp) into one,
// OUT, as if the sweep had run in one piece: every record, the manifest, and sweep.csv and sweep.json
// assembled from the records. Everything is checked before anything is written, and OUT appears as one unit
// (topologies/support/atomic_folder.hpp). An InputError, and nothing written, when the folders are of
// different sweeps (or versions of one: their sweep hashes differ), when a record or manifest fails its checks
// (named by its path: edited, damaged, of an older format; record_folder.hpp), when two folders hold different
// results for one point, or when a point is in none of them.
#include <cstddef>
#include <string>
#include <vector>

#include "workloads/sweep/sweep_record.hpp"

namespace tpusim::workloads {

struct MergeTotals : RecordCounts {  // the merged points (rows), by status
  std::string sweep;                 // its name
};

MergeTotals merge_sweep_folders(const std::string& output, const std::vector<std::string>& folders);

}  // namespace tpusim::workloads
