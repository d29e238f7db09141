#pragma once
// How far long work is, on stderr while results go to stdout: a study's points, a run's steps, a collective's
// rounds.
//   bar    on a terminal: one line redrawn in place,
//          "lm-s5-mesh [########------------]  2/5 done  0 failed  0:31 elapsed  ETA 0:46"
//   plain  for logs (a Slurm job's, a pipe): the same figures as whole lines, at most one per
//          ProgressStyle::plain_every_s and one at the end, so a study of 10,000 small points does not
//          write 10,000 lines
//   none   nothing
// The ETA counts the work this run has finished: points done by an earlier run (their records) took no time
// now.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>

namespace tpusim::workloads {

enum class ProgressMode { bar, plain, none };

// "bar", "plain", "none"; "" = bar when stderr is a terminal, else plain. InputError otherwise.
ProgressMode parse_progress_mode(const std::string& text);

struct ProgressStyle {
  std::string unit = "done";    // after the count: "2/5 done", "1200/100000 steps"
  bool counts_failures = true;  // "0 failed" after the count
  // Nothing is shown until this much time has passed: work that ends sooner stays silent, work that runs
  // longer is never silent.
  double quiet_s = 0;
  double plain_every_s = 1;
};

class Progress {
 public:
  // `total` items, of which `done_before` were done already (records of an earlier run).
  Progress(ProgressMode mode, std::string name, std::int64_t total, std::int64_t done_before = 0,
           ProgressStyle style = {}, std::FILE* out = stderr);
  // Unfinished (the work threw): the bar is cleared, so that the error that follows has its own line.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void one_done(bool failed = false);
  // This run has done `done_now` items (not counting done_before).
  void advance_to(std::int64_t done_now);
  // Redraws the bar (elapsed time moves on while items run); nothing for the other modes.
  void tick();
  // Prints `text` on `where` (stdout, or stderr for notes) without tearing the bar: the bar is cleared first
  // and redrawn after.
  void print_above(const std::string& text, std::ostream& where = std::cout);
  // The last line: the bar ends with a newline, plain prints its final line; nothing if still quiet.
  void finish();

  // The bar or line for the figures now, `width` columns at most.
  std::string line(int width) const;

 private:
  void show();
  void draw();
  void clear();
  bool quiet() const;
  double elapsed_s() const;

  ProgressMode mode_;
  std::string name_;
  std::int64_t total_;
  std::int64_t done_before_;
  std::int64_t done_now_ = 0;
  std::int64_t failed_ = 0;
  ProgressStyle style_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point started_;
  double last_plain_s_ = -1;
  double last_draw_s_ = -1;
  bool drawn_ = false;
  bool finished_ = false;
};

// "0:07", "12:31", "3:02:15"
std::string format_clock(double seconds);

}  // namespace tpusim::workloads
