#include "workloads/sweep/sweep_progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "topologies/support/input_error.hpp"

namespace tpusim::workloads {
namespace {

int terminal_width(std::FILE* out) {
  struct winsize size {};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
  return 80;
}

}  // namespace

ProgressMode parse_progress_mode(const std::string& text) {
  if (text.empty()) return ::isatty(STDERR_FILENO) ? ProgressMode::bar : ProgressMode::plain;
  if (text == "bar") return ProgressMode::bar;
  if (text == "plain") return ProgressMode::plain;
  if (text == "none") return ProgressMode::none;
  throw InputError(fmt::format(
      "--progress: '{}' is not a progress mode; valid modes are bar (a line redrawn in place), plain (lines, "
      "for logs) and none",
      text));
}

std::string format_clock(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

SweepProgress::SweepProgress(ProgressMode mode, std::string name, int total, int done_before, std::FILE* out)
    : mode_(mode),
      name_(std::move(name)),
      total_(total),
      done_before_(done_before),
      out_(out),
      started_(std::chrono::steady_clock::now()) {
  if (mode_ == ProgressMode::bar) draw();
}

double SweepProgress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

std::string SweepProgress::line(int width) const {
  const int done = done_before_ + done_now_;
  const double elapsed = elapsed_s();
  const int left = total_ - done;
  std::string eta = "ETA --";
  if (left == 0) {
    eta = "done";
  } else if (done_now_ > 0) {
    eta = "ETA " + format_clock(elapsed / done_now_ * left);
  }
  // The count padded to the total's width, so that the bar does not change length as the count grows.
  const std::string figures =
      fmt::format("{:>{}}/{} done  {} failed  {} elapsed  {}", done, std::to_string(total_).size(), total_,
                  failed_, format_clock(elapsed), eta);
  if (mode_ != ProgressMode::bar) return fmt::format("{}: {}", name_, figures);
  // The bar takes what the name and figures leave, between 10 and 40 columns.
  const int room = width - 1 - static_cast<int>(name_.size() + figures.size()) - 5;
  const int bar = std::clamp(room, 10, 40);
  const int filled = total_ > 0 ? static_cast<int>(static_cast<long>(bar) * done / total_) : bar;
  std::string text =
      fmt::format("{} [{}{}]  {}", name_, std::string(filled, '#'), std::string(bar - filled, '-'), figures);
  if (static_cast<int>(text.size()) >= width) text.resize(width - 1);
  return text;
}

void SweepProgress::draw() {
  if (mode_ != ProgressMode::bar || finished_) return;
  std::fprintf(out_, "\r\033[K%s", line(terminal_width(out_)).c_str());
  std::fflush(out_);
  drawn_ = true;
}

void SweepProgress::clear() {
  if (mode_ != ProgressMode::bar || !drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

void SweepProgress::point_done(bool failed) {
  ++done_now_;
  if (failed) ++failed_;
  if (mode_ == ProgressMode::bar) return draw();
  if (mode_ != ProgressMode::plain) return;
  const double now = elapsed_s();
  if (done_before_ + done_now_ < total_ && now - last_plain_s_ < 1.0) return;
  last_plain_s_ = now;
  std::fprintf(out_, "%s\n", line(0).c_str());
  std::fflush(out_);
}

void SweepProgress::tick() { draw(); }

void SweepProgress::print_above(const std::string& text) {
  clear();
  std::cout << text << std::flush;
  draw();
}

void SweepProgress::finish() {
  if (finished_) return;
  if (mode_ == ProgressMode::bar) {
    draw();
    std::fprintf(out_, "\n");
    std::fflush(out_);
  } else if (mode_ == ProgressMode::plain && last_plain_s_ < 0) {
    // Nothing ran (every point had its record): still say where the sweep stands.
    std::fprintf(out_, "%s\n", line(0).c_str());
    std::fflush(out_);
  }
  finished_ = true;
}

}  // namespace tpusim::workloads
