#pragma once
// One plot of a sweep as data: what `tpusim plot` draws, independent of gnuplot until chart_script and
// chart_data turn it into the two files kept beside the images (plots/<name>.gp and plots/<name>.dat), so
// that anyone can edit the script and run `gnuplot <name>.gp` in that folder to redraw <name>.png and
// <name>.svg.
#include <string>
#include <utility>
#include <vector>

namespace tpusim::workloads {

struct ChartSeries {
  std::string title;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in this order
  bool joined = true;                             // lines style: points joined by a line, or points alone
};

struct Chart {
  enum class Style {
    lines,         // one line with markers per series, against a numeric or labelled x axis
    stacked_bars,  // one bar per label in bar_labels; series i is the i-th part of every bar, bottom up
  };
  std::string name;  // the file stem under plots/
  std::string title;
  std::string x_label;
  std::string y_label;
  std::string legend_title;  // what the series differ by, such as the varied keys
  Style style = Style::lines;
  bool log2_x = false;
  bool log_y = false;
  std::vector<std::pair<double, std::string>> x_tics;  // (x, label); empty: gnuplot chooses
  std::vector<std::string> bar_labels;                 // stacked_bars: one per bar, in order
  std::vector<ChartSeries> series;                     // stacked_bars: y of bar i is points[i].second

  bool empty() const;  // no series holds a point: nothing to draw
};

// The gnuplot script: draws <name>.png (pngcairo, or gnuplot's png where cairo is missing) and <name>.svg
// from <name>.dat, both relative to the folder it runs in.
std::string chart_script(const Chart& chart);
// The data, tab separated: lines, one block per series in order (gnuplot's `index i`); stacked bars, one row
// per bar: its label, then one column per series.
std::string chart_data(const Chart& chart);

}  // namespace tpusim::workloads
