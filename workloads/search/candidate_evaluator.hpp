#pragma once
// Evaluates search candidates: each is written as the config `tpusim run` would run (candidate_config_yaml),
// read and checked as such, and its training step simulated timing only. The model's graph is built once per
// pipeline (and, with sharded weights, per mesh and layout, which its variables are built for), and
// one Simulator serves every candidate, with isolated collectives (sim/simulator.hpp): each distinct
// collective is simulated once, from clock 0, and its time reused by every later candidate that issues it
// (the simulator remembers results by the whole request, the executors by program step:
// mtf::ExecutionOptions::share_collective_times), so a time never depends on which candidates came first.
#include <chrono>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>

#include "workloads/config/run_config.hpp"
#include "workloads/search/search_space.hpp"

namespace tpusim::sim {
class Simulator;
}

namespace tpusim::workloads {

struct TrainingProgram;

struct CandidateOutcome {
  enum class Status { fits, over_cap, illegal };
  Candidate candidate;
  Status status = Status::illegal;
  std::string problem;  // illegal: what the config reader or the engine said
  // Fits only (a step over the cap is not simulated): the step, its MFU, exposed communication, calls.
  double step_time_s = 0;
  std::uint64_t memory_per_core_bytes = 0;  // legal ones
  double mfu = 0;
  double exposed_communication_s = 0;
  int collective_calls = 0;
  double wall_s = 0;  // measured: reading, lowering and simulating this candidate
  bool legal() const { return status != Status::illegal; }
};
const char* to_string(CandidateOutcome::Status status);  // fits, over_cap, illegal

class CandidateEvaluator {
 public:
  // `share_collective_times` false re-simulates every collective of every candidate (neither the executors
  // nor the simulator remember times): the reference that the shared cache must equal bit for bit.
  CandidateEvaluator(const RunConfig& base, std::string base_yaml, std::uint64_t memory_cap_bytes,
                     bool share_collective_times = true);
  ~CandidateEvaluator();
  CandidateEvaluator(const CandidateEvaluator&) = delete;
  CandidateEvaluator& operator=(const CandidateEvaluator&) = delete;

  CandidateOutcome evaluate(const Candidate& candidate);
  // The base config as written (its own mesh, layout, mapping and algorithms), under the same cap.
  CandidateOutcome evaluate_base();
  // Distinct collectives simulated so far (each in its own child).
  std::uint64_t simulated_collectives() const;
  // The simulator, for keeping its remembered times between searches (collective_time_file.hpp).
  sim::Simulator& simulator() { return *simulator_; }

 private:
  CandidateOutcome evaluate_config(const RunConfig& config, Candidate candidate,
                                   std::chrono::steady_clock::time_point started);

  // The program a config lays out: built the first time it is asked for, and kept as long as the cache
  // keeps it (candidate_evaluator.cpp).
  const TrainingProgram& program_for(const RunConfig& config);

  RunConfig base_;
  std::string base_yaml_;
  std::uint64_t memory_cap_bytes_;
  bool share_collective_times_;
  // Programs by what they depend on (program_key): those of every pipeline without weight sharding, and the
  // most recent few of those with sharded weights, each built for one mesh and layout.
  std::map<std::string, std::unique_ptr<TrainingProgram>> shared_programs_;
  std::list<std::pair<std::string, std::unique_ptr<TrainingProgram>>> sharded_programs_;  // most recent first
  std::unique_ptr<sim::Simulator> simulator_;
  // Bytes per core by everything they depend on: "mesh shape|layout|weight sharding|stages x microbatches".
  std::map<std::string, std::uint64_t> memory_by_structure_;
};

}  // namespace tpusim::workloads
