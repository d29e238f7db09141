#pragma once
// How far a sweep is, on stderr while the table goes to stdout:
//   bar    on a terminal: one line redrawn in place,
//          "lm-s5-mesh [########------------]  2/5 done  0 failed  0:31 elapsed  ETA 0:46"
//   plain  for logs (a Slurm job's, a pipe): the same figures as whole lines, at most one a second and one
//          at the end, so a study of 10,000 small points does not write 10,000 lines
//   none   nothing
// The ETA counts the points this run has finished: those done by an earlier run (their records) took no time
// now.
#include <chrono>
#include <cstdio>
#include <string>

namespace tpusim::workloads {

enum class ProgressMode { bar, plain, none };

// "bar", "plain", "none"; "" = bar when stderr is a terminal, else plain. InputError otherwise.
ProgressMode parse_progress_mode(const std::string& text);

class SweepProgress {
 public:
  // `total` points, of which `done_before` were done already (records of an earlier run).
  SweepProgress(ProgressMode mode, std::string name, int total, int done_before, std::FILE* out = stderr);

  void point_done(bool failed);
  // Redraws the bar (elapsed time moves on while points run); nothing for the other modes.
  void tick();
  // Prints `text` on stdout without tearing the bar: the bar is cleared first and redrawn after.
  void print_above(const std::string& text);
  // The last line: the bar ends with a newline, plain prints its final line.
  void finish();

  // The bar or line for the figures now, `width` columns at most.
  std::string line(int width) const;

 private:
  void draw();
  void clear();
  double elapsed_s() const;

  ProgressMode mode_;
  std::string name_;
  int total_;
  int done_before_;
  int done_now_ = 0;
  int failed_ = 0;
  std::FILE* out_;
  std::chrono::steady_clock::time_point started_;
  double last_plain_s_ = -1;
  bool drawn_ = false;
  bool finished_ = false;
};

// "0:07", "12:31", "3:02:15"
std::string format_clock(double seconds);

}  // namespace tpusim::workloads
