#pragma once
// Up to N points at once, each in a fork()ed child of its own (SimGrid allows one simulation per process),
// their results back through pipes. The parent only waits: it keeps no simulation state, so its memory does
// not grow with the points it has run. Children die with the parent (PR_SET_PDEATHSIG): a sweep killed with
// kill -9 leaves no orphan simulating a point whose result nobody will read. A child still running at its
// time limit is killed (with the children it started) and comes back as a failure saying so and how to
// raise the limit (child_time_limit.hpp: TPUSIM_CHILD_TIME_LIMIT_S, a day by default).
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace tpusim::workloads {

struct ChildOutcome {
  std::size_t tag = 0;  // what start() was given
  std::string output;   // the work's result, when it returned one
  // Otherwise why not: an InputError in the child (input_error = true), any other exception, a crash or a
  // signal.
  std::string error;
  bool input_error = false;
  double wall_s = 0;        // fork to exit, measured by the parent
  double peak_rss_mib = 0;  // the child's maximum resident set (wait4)
  bool ok() const { return error.empty(); }
};

class ChildPool {
 public:
  explicit ChildPool(int jobs);              // jobs >= 1; each child's time limit child_time_limit_s()
  ChildPool(int jobs, double time_limit_s);  // time_limit_s > 0
  ~ChildPool();                              // kills and reaps the children still running
  ChildPool(const ChildPool&) = delete;
  ChildPool& operator=(const ChildPool&) = delete;

  int jobs() const { return jobs_; }
  std::size_t running() const { return children_.size(); }
  bool full() const { return static_cast<int>(children_.size()) >= jobs_; }

  // Forks a child that runs `work` and exits. Throws std::runtime_error if fork or pipe fail.
  void start(std::size_t tag, const std::function<std::string()>& work);
  // Waits up to timeout_s for a child to finish or pass its time limit; nothing when none did in that time
  // (or none runs).
  std::optional<ChildOutcome> wait(double timeout_s);

 private:
  struct Child {
    pid_t pid = 0;
    std::size_t tag = 0;
    std::string message;
    double started_s = 0;
    double deadline_s = 0;  // killed when still running then
  };
  ChildOutcome reap(int fd, Child child);
  std::optional<ChildOutcome> overdue();  // the first child past its time limit, killed and reaped

  int jobs_;
  double time_limit_s_;
  std::map<int, Child> children_;  // by the read end of its pipe
};

// The number of cores this process may run on (its CPU affinity, which Slurm and taskset narrow), at least 1.
int online_cores();

}  // namespace tpusim::workloads
