#pragma once
// How much room a chart's text takes, estimated before gnuplot draws it, so that the script can choose where
// labels go: tick labels that would run into each other are slanted (numbers) or the categories go down the
// side (words), and the image grows by the rows of a legend below the plot rather than the plot shrinking.
// The estimates are of gnuplot's Sans at 11 points, the font of both images: an average advance per
// character and a line height, generous rather than tight.
#include <string>
#include <utility>
#include <vector>

namespace tpusim::workloads {

inline constexpr int kChartWidthPx = 960;
inline constexpr int kChartBaseHeightPx = 560;  // before the legend's rows and slanted tick labels
inline constexpr int kChartMaxHeightPx = 1400;
inline constexpr double kCharWidthPx = 8.0;
inline constexpr double kLineHeightPx = 18.0;
// What the plot's frame leaves of the image's width: the y axis' labels on the left, a margin on the right.
inline constexpr double kPlotWidthPx = kChartWidthPx - 130;

// The width of `text` in pixels: the characters (UTF-8 code points) of its longest line at kCharWidthPx.
double text_width_px(const std::string& text);

// `text` broken in two lines at the space that leaves its longer line shortest, after a comma when it has
// one (each line holds whole settings), never beside a × nor before a number: a tick label that fits in two lines where it did
// not in one. Text without such a space stays as it is.
std::string in_two_lines(const std::string& text);

// Whether tick labels can stand side by side along an axis `axis_px` long: each is centred at its position
// (a fraction of the axis, 0 to 1), and neighbours need a character's width between them.
bool tick_labels_fit(const std::vector<std::pair<double, std::string>>& at_fraction, double axis_px);

// A legend below the plot, entries side by side in as many columns as the image's width takes.
struct KeyRows {
  int columns = 1;
  int rows = 0;  // of entries, and two more for a title and the blank line before it
};
KeyRows key_rows_below(const std::vector<std::string>& entries, const std::string& title);

}  // namespace tpusim::workloads
