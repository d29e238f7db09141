#include "workloads/report/progress.hpp"

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

Progress::Progress(ProgressMode mode, std::string name, std::int64_t total, std::int64_t done_before,
                   ProgressStyle style, std::FILE* out)
    : mode_(mode),
      name_(std::move(name)),
      total_(total),
      done_before_(done_before),
      style_(std::move(style)),
      out_(out),
      started_(std::chrono::steady_clock::now()) {
  if (mode_ == ProgressMode::bar && !quiet()) draw();
}

Progress::~Progress() {
  if (!finished_) clear();
}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

bool Progress::quiet() const { return style_.quiet_s > 0 && elapsed_s() < style_.quiet_s; }

std::string Progress::line(int width) const {
  const std::int64_t done = done_before_ + done_now_;
  const double elapsed = elapsed_s();
  const std::int64_t left = total_ - done;
  std::string eta = "ETA --";
  if (left <= 0) {
    eta = "done";
  } else if (done_now_ > 0) {
    eta = "ETA " + format_clock(elapsed / double(done_now_) * double(left));
  }
  // The count padded to the total's width, so that the bar does not change length as the count grows.
  std::string figures = fmt::format("{:>{}}/{} {}", done, std::to_string(total_).size(), total_, style_.unit);
  if (style_.counts_failures) figures += fmt::format("  {} failed", failed_);
  figures += fmt::format("  {} elapsed  {}", format_clock(elapsed), eta);
  if (mode_ != ProgressMode::bar) return fmt::format("{}: {}", name_, figures);
  // The bar takes what the name and figures leave, between 10 and 40 columns.
  const int room = width - 1 - static_cast<int>(name_.size() + figures.size()) - 5;
  const int bar = std::clamp(room, 10, 40);
  const int filled =
      total_ > 0 ? static_cast<int>(std::clamp<std::int64_t>(bar * done / total_, 0, bar)) : bar;
  std::string text =
      fmt::format("{} [{}{}]  {}", name_, std::string(filled, '#'), std::string(bar - filled, '-'), figures);
  if (static_cast<int>(text.size()) >= width) text.resize(width - 1);
  return text;
}

void Progress::draw() {
  if (mode_ != ProgressMode::bar || finished_ || quiet()) return;
  std::fprintf(out_, "\r\033[K%s", line(terminal_width(out_)).c_str());
  std::fflush(out_);
  drawn_ = true;
  last_draw_s_ = elapsed_s();
}

void Progress::clear() {
  if (mode_ != ProgressMode::bar || !drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

void Progress::show() {
  if (mode_ == ProgressMode::none || quiet()) return;
  const double now = elapsed_s();
  const bool last = done_before_ + done_now_ >= total_;
  if (mode_ == ProgressMode::bar) {
    // A collective's rounds can come a million a second: redraw at most ten times a second.
    if (last || last_draw_s_ < 0 || now - last_draw_s_ >= 0.1) draw();
    return;
  }
  if (!last && last_plain_s_ >= 0 && now - last_plain_s_ < style_.plain_every_s) return;
  last_plain_s_ = now;
  std::fprintf(out_, "%s\n", line(0).c_str());
  std::fflush(out_);
}

void Progress::one_done(bool failed) {
  ++done_now_;
  if (failed) ++failed_;
  show();
}

void Progress::advance_to(std::int64_t done_now) {
  if (done_now == done_now_) return;
  done_now_ = done_now;
  show();
}

void Progress::tick() { draw(); }

void Progress::print_above(const std::string& text, std::ostream& where) {
  clear();
  where << text << std::flush;
  draw();
}

void Progress::finish() {
  if (finished_) return;
  if (quiet()) {
    finished_ = true;
    return;
  }
  if (mode_ == ProgressMode::bar) {
    draw();
    std::fprintf(out_, "\n");
    std::fflush(out_);
  } else if (mode_ == ProgressMode::plain && last_plain_s_ < 0) {
    // Nothing ran (every point had its record): still say where the work stands.
    std::fprintf(out_, "%s\n", line(0).c_str());
    std::fflush(out_);
  }
  finished_ = true;
}

}  // namespace tpusim::workloads
