#include "workloads/report/label_placement.hpp"

#include <algorithm>
#include <cmath>

#include "workloads/report/chart_geometry.hpp"

namespace tpusim::workloads {
namespace {

// The plot's height in pixels, for a chart of the base height (the width is kPlotWidthPx).
constexpr double kPlotHeightPx = kChartBaseHeightPx - 140;
// How far a label starts from its point (gnuplot's offset of 0.8 characters), and a marker's half size.
constexpr double kLabelGapPx = 0.8 * kCharWidthPx;
constexpr double kMarkerPx = 6;

struct Box {
  double left, bottom, right, top;  // pixels
};

double overlap(const Box& a, const Box& b) {
  const double w = std::min(a.right, b.right) - std::max(a.left, b.left);
  const double h = std::min(a.top, b.top) - std::max(a.bottom, b.bottom);
  return w > 0 && h > 0 ? w * h : 0;
}

Box box_of(const PlacedLabel& label, LabelSide side) {
  const double x = label.at.first * kPlotWidthPx, y = label.at.second * kPlotHeightPx;
  const double width = text_width_px(label.text);
  const bool right = side == LabelSide::upper_right || side == LabelSide::lower_right;
  const bool upper = side == LabelSide::upper_right || side == LabelSide::upper_left;
  const double left = right ? x + kLabelGapPx : x - kLabelGapPx - width;
  const double bottom = upper ? y + kMarkerPx / 2 : y - kMarkerPx / 2 - kLineHeightPx;
  return {left, bottom, left + width, bottom + kLineHeightPx};
}

// Outside the plot's frame counts as covered: the label would leave the plot.
double outside(const Box& box) {
  const double w = box.right - box.left, h = box.top - box.bottom;
  return w * h - overlap(box, {0, 0, kPlotWidthPx, kPlotHeightPx});
}

}  // namespace

std::pair<double, double> autoscaled_range(double low, double high, bool logarithmic) {
  if (logarithmic && low > 0)
    return {std::pow(10, std::floor(std::log10(low))), std::pow(10, std::ceil(std::log10(high)))};
  const double range = high - low;
  if (!(range > 0)) return {low, high};
  const double power = std::pow(10, std::floor(std::log10(range)));
  const double positions = 20 / (range / power);
  const double step = power * (positions > 40    ? 0.05
                               : positions > 20  ? 0.1
                               : positions > 10  ? 0.2
                               : positions > 4   ? 0.5
                               : positions > 2   ? 1
                               : positions > 0.5 ? 2
                                                 : std::ceil(range / power));
  return {std::floor(low / step) * step, std::ceil(high / step) * step};
}

double axis_fraction(double value, double low, double high, bool logarithmic) {
  if (logarithmic && value > 0 && low > 0 && high > low)
    return (std::log(value) - std::log(low)) / (std::log(high) - std::log(low));
  return high > low ? (value - low) / (high - low) : 0.5;
}

std::vector<LabelSide> place_labels(const std::vector<PlacedLabel>& labels,
                                    const std::vector<std::pair<double, double>>& points) {
  constexpr LabelSide kSides[] = {LabelSide::upper_right, LabelSide::lower_right, LabelSide::upper_left,
                                  LabelSide::lower_left};
  std::vector<Box> taken;
  for (const auto& [x, y] : points) {
    const double px = x * kPlotWidthPx, py = y * kPlotHeightPx;
    taken.push_back({px - kMarkerPx, py - kMarkerPx, px + kMarkerPx, py + kMarkerPx});
  }
  std::vector<LabelSide> sides;
  for (const auto& label : labels) {
    LabelSide best = kSides[0];
    double least = INFINITY;
    for (const LabelSide side : kSides) {
      const Box box = box_of(label, side);
      double covered = outside(box);
      for (const Box& other : taken) covered += overlap(box, other);
      if (covered < least) least = covered, best = side;
      if (covered == 0) break;
    }
    sides.push_back(best);
    taken.push_back(box_of(label, best));
  }
  return sides;
}

}  // namespace tpusim::workloads
