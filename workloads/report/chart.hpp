#pragma once
// One plot of a sweep as data: what `tpusim plot` draws, independent of gnuplot until chart_script and
// chart_data turn it into the two files kept beside the images (plots/<name>.gp and plots/<name>.dat), so
// that anyone can edit the script and run `gnuplot <name>.gp` in that folder to redraw <name>.png and
// <name>.svg.
//
// What the script does for a reader of a paper: the legend goes below the plot (none for a lone series), so
// it never covers data nor takes the plot's width; each series has its own colour, dash type and marker
// (series_styles.hpp); tick labels that would collide are slanted, and categories whose labels would collide
// go down the side instead (chart_geometry.hpp); the image grows to hold the legend's rows.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "workloads/report/label_placement.hpp"

namespace tpusim::workloads {

struct ChartSeries {
  enum class Draw {
    lines,      // markers joined by a line, in the series' style
    points,     // markers alone: points with no order between them
    reference,  // a guide such as ideal scaling: a thin black dashed line, no markers
    highlight,  // a large open black ring on each point, over the others (the config's own layout)
  };
  ChartSeries() = default;
  ChartSeries(std::string title_, std::vector<std::pair<double, double>> points_, Draw draw_ = Draw::lines)
      : title(std::move(title_)), points(std::move(points_)), draw(draw_) {}

  std::string title;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in this order
  Draw draw = Draw::lines;
  std::vector<std::string> point_labels;  // empty, or one per point ("" for none): text drawn beside it
  std::vector<LabelSide> label_sides;     // where each label goes (label_placement.hpp); missing: upper right
  // With Chart::colours: the index of its entry there (its colour and marker), and of its entry in
  // Chart::dashes (its dash type). -1: its place among the series picks its style.
  int colour = -1;
  int dash = -1;
};

// A legend of one dimension of a grid of series: its entries, each a colour (or a dash type).
struct ChartLegendGroup {
  std::string title;  // what the entries are, such as "algorithm"
  std::vector<std::string> entries;
};

struct Chart {
  enum class Style {
    lines,         // one line with markers per series, against a numeric or labelled x axis
    stacked_bars,  // one bar per label in bar_labels; series i is the i-th part of every bar, from the axis
  };
  enum class Scale { linear, log2, log10 };
  std::string name;  // the file stem under plots/
  std::string title;
  std::string x_label;
  std::string y_label;
  std::string legend_title;  // what the series differ by, such as the varied keys
  Style style = Style::lines;
  Scale x_scale = Scale::linear;
  Scale y_scale = Scale::linear;
  // lines: x is a category index 0, 1, ... labelled by x_tics (a mesh shape, a point of a sweep), rather
  // than a number; categories whose labels do not fit side by side go down the y axis instead.
  bool categories = false;
  std::vector<std::pair<double, std::string>> x_tics;  // (x, label); empty: gnuplot chooses
  std::vector<std::string> bar_labels;                 // stacked_bars: one per bar, in order
  std::vector<ChartSeries> series;                     // stacked_bars: y of bar i is points[i].second
  // stacked_bars: the top of the value axis (NaN: the highest bar's); a bar past it is cut there, its total
  // written at the cut. Bars marked are hatched (points that do not fit their HBM).
  double value_max = NAN;
  std::string value_unit;  // of the values, for a cut bar's total: "s"
  std::vector<bool> bar_marked;
  // When colours has entries, the series are a grid: the legend shows these two groups, not each series.
  ChartLegendGroup colours;
  ChartLegendGroup dashes;

  bool empty() const;  // no series holds a point: nothing to draw
};

// The gnuplot script: draws <name>.png (pngcairo, or gnuplot's png where cairo is missing) and <name>.svg
// from <name>.dat, both relative to the folder it runs in.
std::string chart_script(const Chart& chart);
// The data, tab separated: lines, one block per series in order (gnuplot's `index i`: x, y, and a label
// where the series has point labels); stacked bars, one row per bar: its index, its label, then one column
// per series.
std::string chart_data(const Chart& chart);

}  // namespace tpusim::workloads
