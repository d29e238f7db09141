#include "workloads/report/chart_geometry.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace tpusim::workloads {
namespace {

// A legend entry is its sample line and marker, then its text.
constexpr double kKeySamplePx = 60;

}  // namespace

double text_width_px(const std::string& text) {
  std::size_t characters = 0, widest = 0;
  for (const char c : text) {
    if (c == '\n') {
      characters = 0;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
      widest = std::max(widest, ++characters);
    }
  }
  return double(widest) * kCharWidthPx;
}

std::string in_two_lines(const std::string& text) {
  // Settings are kept whole: after a comma when there is one.
  const std::string after = text.find(", ") != std::string::npos ? ", " : " ";
  std::size_t best = std::string::npos;
  const auto longer = [&](std::size_t at) { return std::max(at, text.size() - at); };
  for (std::size_t i = text.find(after); i != std::string::npos; i = text.find(after, i + 1)) {
    const std::size_t space = i + after.size() - 1;
    // "batch 16 × model 2" is one mesh: not broken at its ×.
    const bool by_times =
        text.compare(space + 1, 2, "×") == 0 || (space >= 2 && text.compare(space - 2, 2, "×") == 0);
    // A number stays with the name before it: "batch 16", "seed 7".
    const bool before_number =
        space + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[space + 1]));
    if (by_times || before_number) continue;
    if (best == std::string::npos || longer(space) < longer(best)) best = space;
  }
  if (best == std::string::npos) return text;
  return text.substr(0, best) + "\n" + text.substr(best + 1);
}

bool tick_labels_fit(const std::vector<std::pair<double, std::string>>& at_fraction, double axis_px) {
  std::vector<std::pair<double, std::string>> sorted = at_fraction;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const double gap_px = (sorted[i].first - sorted[i - 1].first) * axis_px;
    const double needed_px =
        (text_width_px(sorted[i].second) + text_width_px(sorted[i - 1].second)) / 2 + kCharWidthPx;
    if (gap_px < needed_px) return false;
  }
  return true;
}

KeyRows key_rows_below(const std::vector<std::string>& entries, const std::string& title) {
  KeyRows key;
  if (entries.empty()) return key;
  double widest = 0;
  for (const auto& entry : entries) widest = std::max(widest, text_width_px(entry));
  key.columns = std::max(1, int(double(kChartWidthPx - 40) / (widest + kKeySamplePx)));
  key.columns = std::min<int>(key.columns, int(entries.size()));
  key.rows = int((entries.size() + std::size_t(key.columns) - 1) / std::size_t(key.columns));
  if (!title.empty()) key.rows += 2;  // the title, after a blank line
  return key;
}

}  // namespace tpusim::workloads
