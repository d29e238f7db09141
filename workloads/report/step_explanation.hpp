#pragma once
// Why a simulated step takes what it takes (tpusim run --explain, and summary.json's "explain"): the step
// time split by what bounded it (each local op's roofline term, its per-op overhead, exposed communication,
// idle time) and by op kind, the ops that took longest with their work, achieved rate and bound, and for each
// collective that compute waited for, the op that waited. The parts add up to the step time.
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mesh_tf/timeline.hpp"

namespace tpusim::workloads {

struct TimeShare {
  std::string name;
  double time_s = 0;
};

struct ExplainedOp {
  std::string op;      // the graph op (its first step's label)
  std::string family;  // its kind
  int steps = 0;       // lowered steps of this op in the step
  double time_s = 0, flops = 0, hbm_bytes = 0;
  std::string bound;  // what set most of its time
  double flops_per_s() const { return time_s > 0 ? flops / time_s : 0; }
};

struct ExposedWait {
  std::string collective;  // the collective's label
  std::string kind;        // "allreduce"
  double exposed_s = 0;
  std::string waiting_op;  // the compute step that started when the collective ended ("" if none did)
};

struct StepExplanation {
  double step_time_s = 0;
  double peak_flops = 0;  // per core, for achieved rates
  // Matrix unit, vector unit, FLOP rate and HBM bandwidth where an op had them; per-op overhead, exposed
  // communication, idle.
  std::vector<TimeShare> by_bound;
  std::vector<TimeShare> by_family;  // compute per op kind, exposed communication per collective kind
  std::vector<ExplainedOp> top_ops;  // longest first
  std::vector<ExposedWait> waits;    // by exposed time, largest first
};

StepExplanation explain_step(const mtf::Timeline& timeline, double peak_flops, int top_ops = 20);
void print_explanation(std::ostream& out, const StepExplanation& explanation);
nlohmann::json explanation_json(const StepExplanation& explanation);

}  // namespace tpusim::workloads
