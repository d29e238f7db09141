#pragma once
// Where the labels of a plot's points go so that they do not cover each other or the points: each label
// takes one of the four corners around its point, the first (in the order of LabelSide) that overlaps no
// label placed before it and no point, else the one that overlaps least. Positions are fractions of the
// plot's width and height (0 to 1, from the lower left), the labels' sizes estimated as chart_geometry.hpp
// does, so the placement is a good guess of gnuplot's drawing, not an exact one.
#include <string>
#include <utility>
#include <vector>

namespace tpusim::workloads {

enum class LabelSide { upper_right, lower_right, upper_left, lower_left };

struct PlacedLabel {
  std::pair<double, double> at;  // the point, as fractions of the plot's width and height
  std::string text;
};

// One side per label, in order. `points` are every point drawn (markers to keep clear of), as fractions.
std::vector<LabelSide> place_labels(const std::vector<PlacedLabel>& labels,
                                    const std::vector<std::pair<double, double>>& points);

// Where gnuplot's autoscaling ends an axis holding `low` to `high`: at whole decades on a log axis, else at
// multiples of the tick step it would choose (its quantize_normal_tics).
std::pair<double, double> autoscaled_range(double low, double high, bool logarithmic);

// The fraction of `value` along an axis from `low` to `high`, logarithmic or not.
double axis_fraction(double value, double low, double high, bool logarithmic);

}  // namespace tpusim::workloads
