#pragma once
// `tpusim validate` as a collective study plus its checks: every algorithm of the registry on a fixed set of
// small and large pods, at four message sizes, each point simulated in its child as any collective study's
// point is (records, resume, jobs, progress), its record then checked against the analytical figures of
// sim/README.md (The collective cost model). An algorithm that does not fit a pod's group is a skipped point
// with the reason, as in any collective study.
//
// Checks, on the ideal network:
//   bound     simulated >= the algorithm-independent lower bound
//   path      simulated >= the contention-free alpha-beta critical path (links shared can only slow it down)
//   exact     contention-free points: simulated == that critical path to 1e-6 relative
//   formula   points with a closed form of sim/README.md (one hop over identical links, sizes dividing
//             evenly): closed form == critical path to 1e-6
//   busbw     busbw <= the injection bandwidth of a core
//   routing   a one-round all-to-all over the whole 8x8 torus: the busiest link carries 80 pair-messages
//   where
//             the bisection bound assumes 64 (dimension-order routing breaks k/2 ties by position), and the
//             simulated time is that link's load / B plus at most the diameter's latency
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "workloads/sweep/collective_study.hpp"

namespace tpusim::workloads {

// What tpusim validate writes beside its study's summary (ValidationStudy::report_files).
inline constexpr const char* kValidateCsv = "validate.csv";
inline constexpr const char* kValidateJson = "validate.json";

// The message sizes every algorithm runs at.
const std::vector<std::string>& validation_sizes();
inline constexpr double kExactTolerance = 1e-6;  // relative

class ValidationStudy : public CollectiveStudy {
 public:
  explicit ValidationStudy(const std::string& output_dir);

  // The record with every field, and the checks run and failed ("bound+path+busbw", "").
  std::string run_point(std::size_t point) const override;
  // validate.csv and validate.json, which tpusim validate writes beside the summary.
  std::vector<std::string> report_files() const override;

  // validate.json's row of a point that ran: its topology as written, op, record, checks and failed.
  nlohmann::json row(std::size_t point, const PointOutcome& outcome) const;

 private:
  std::set<std::string> routing_checked_;  // the topologies whose all-to-all is checked for routing
};

// validate.csv's columns: topology, op, the record's fields in their order, checks and status.
std::vector<std::string> validation_columns();

}  // namespace tpusim::workloads
