#include "workloads/report/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "workloads/report/chart_geometry.hpp"
#include "workloads/report/series_styles.hpp"

namespace tpusim::workloads {
namespace {

constexpr double kBarHalfWidth = 0.35;  // of a category's width of 1
constexpr double kMarkerSize = 1.3;

// A gnuplot single-quoted string: nothing is special inside but the quote itself, doubled.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') out += '\'';
    out += (c == '\n' || c == '\t') ? ' ' : c;
  }
  return out + "'";
}

// A data cell: tabs separate the columns and newlines the rows, so neither may be inside one.
std::string cell(const std::string& text) {
  std::string out = text;
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  return out;
}

// A gnuplot double-quoted string, for text of several lines: a newline is written \n, and a backslash or
// double quote is escaped.
std::string double_quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\t' ? ' ' : c;
  }
  return out + "\"";
}

std::string number(double value) { return fmt::format("{:.10g}", value); }

// The categories of a chart whose x is a category: its bars, or its labelled points; none for numbers.
std::vector<std::pair<double, std::string>> categories_of(const Chart& chart) {
  std::vector<std::pair<double, std::string>> categories;
  if (chart.style == Chart::Style::stacked_bars) {
    for (std::size_t i = 0; i < chart.bar_labels.size(); ++i)
      categories.emplace_back(double(i), chart.bar_labels[i]);
  } else if (chart.categories) {
    categories = chart.x_tics;
  }
  return categories;
}

// Where each category's label sits along an axis from -0.5 to the last index + 0.5, as a fraction of it.
std::vector<std::pair<double, std::string>> along_axis(const std::vector<std::pair<double, std::string>>& at,
                                                       double low, double high, bool log2) {
  std::vector<std::pair<double, std::string>> fractions;
  for (const auto& [x, label] : at) {
    const double f = log2 ? (std::log2(x) - std::log2(low)) / (std::log2(high) - std::log2(low))
                          : (x - low) / (high - low);
    fractions.emplace_back(f, label);
  }
  return fractions;
}

// The x axis' range when the chart gives its tics: the points sit inside the frame rather than on it.
std::pair<double, double> x_range(const Chart& chart) {
  double low = chart.x_tics.front().first, high = low;
  for (const auto& tic : chart.x_tics) low = std::min(low, tic.first), high = std::max(high, tic.first);
  if (chart.x_scale != Chart::Scale::linear && low > 0) return {low / 1.5, high * 1.5};
  return {low - 0.5, high + 0.5};
}

struct Layout {
  bool sideways = false;  // the categories go down the y axis: their labels would collide across
  bool slanted = false;   // numeric x tick labels slanted: upright, they would collide
  bool wrapped = false;   // category labels in two lines: in one, they would collide
  std::vector<std::pair<double, std::string>> categories;
  std::vector<std::string> key_entries;
  std::string key_title;
  int height_px = kChartBaseHeightPx;
};

bool is_data(const ChartSeries& series) {
  return series.draw == ChartSeries::Draw::lines || series.draw == ChartSeries::Draw::points;
}

Layout layout_of(const Chart& chart) {
  Layout layout;
  layout.categories = categories_of(chart);
  if (!layout.categories.empty()) {
    // Across in a line each, else in two lines each, else down the side.
    const double n = double(layout.categories.size());
    const auto fits = [&](const std::vector<std::pair<double, std::string>>& categories) {
      return tick_labels_fit(along_axis(categories, -0.5, n - 0.5, false), kPlotWidthPx);
    };
    if (!fits(layout.categories)) {
      auto wrapped = layout.categories;
      // Only those wider than their share of the axis.
      const double share_px = kPlotWidthPx / n - kCharWidthPx;
      for (auto& category : wrapped) {
        if (text_width_px(category.second) > share_px) category.second = in_two_lines(category.second);
      }
      layout.wrapped = fits(wrapped);
      if (layout.wrapped) layout.categories = wrapped;
      layout.sideways = !layout.wrapped;
    }
  } else if (!chart.x_tics.empty()) {
    const auto [low, high] = x_range(chart);
    layout.slanted = !tick_labels_fit(
        along_axis(chart.x_tics, low, high, chart.x_scale != Chart::Scale::linear), kPlotWidthPx);
  }
  if (!chart.colours.entries.empty()) {
    layout.key_entries = chart.colours.entries;
    layout.key_entries.insert(layout.key_entries.end(), chart.dashes.entries.begin(),
                              chart.dashes.entries.end());
    layout.key_title = chart.dashes.entries.empty()
                           ? chart.colours.title
                           : fmt::format("{} (colour), {} (dash)", chart.colours.title, chart.dashes.title);
  } else {
    for (const auto& series : chart.series) {
      if (!series.title.empty()) layout.key_entries.push_back(series.title);
    }
    layout.key_title = chart.legend_title;
  }
  if (std::any_of(chart.bar_marked.begin(), chart.bar_marked.end(), [](bool m) { return m; }))
    layout.key_entries.push_back("does not fit its HBM");
  // A lone entry says what the axis label says already.
  if (layout.key_entries.size() < 2) layout.key_entries.clear(), layout.key_title.clear();
  const KeyRows key = key_rows_below(layout.key_entries, layout.key_title);
  double longest_tic = 0;
  for (const auto& tic : chart.x_tics) longest_tic = std::max(longest_tic, text_width_px(tic.second));
  layout.height_px += int(key.rows * kLineHeightPx);
  if (layout.slanted) layout.height_px += int(longest_tic * 0.71);
  if (layout.wrapped) layout.height_px += int(kLineHeightPx);
  // Categories down the side keep a line and a half each.
  if (layout.sideways)
    layout.height_px = std::max(layout.height_px, int(double(layout.categories.size()) * 1.5 * kLineHeightPx +
                                                      key.rows * kLineHeightPx + 200));
  layout.height_px = std::min(layout.height_px, kChartMaxHeightPx);
  return layout;
}

std::string scale_command(const char* axis, Chart::Scale scale) {
  if (scale == Chart::Scale::log2) return fmt::format("set logscale {} 2\n", axis);
  if (scale == Chart::Scale::log10) return fmt::format("set logscale {}\n", axis);
  return "";
}

std::string tics_list(const std::vector<std::pair<double, std::string>>& tics) {
  std::vector<std::string> items;
  for (const auto& [x, label] : tics) {
    const bool lines = label.find('\n') != std::string::npos;
    items.push_back((lines ? double_quoted(label) : quoted(label)) + " " + number(x));
  }
  return "(" + fmt::format("{}", fmt::join(items, ", ")) + ")";
}

std::string key_command(const Layout& layout) {
  if (layout.key_entries.empty()) return "unset key\n";
  // Below the plot, never over the data, the whole width for its columns.
  std::string text = "set key outside below center horizontal Left reverse";
  // A blank line first keeps the legend's title apart from the x axis' label above it.
  if (!layout.key_title.empty()) text += " title " + double_quoted("\n" + layout.key_title);
  return text + "\n";
}

// The axes of a chart of numbers, or of categories across or down the side.
std::string axes(const Chart& chart, const Layout& layout) {
  std::string text;
  const bool bars = chart.style == Chart::Style::stacked_bars;
  const char* value_axis = layout.sideways ? "x" : "y";
  const char* category_axis = layout.sideways ? "y" : "x";
  const std::string range_max = std::isfinite(chart.value_max) ? number(chart.value_max) : "*";
  if (!layout.categories.empty()) {
    const double last = double(layout.categories.size()) - 0.5;
    text += fmt::format("set {}tics {}\n", category_axis, tics_list(layout.categories));
    // Down the side, the first category on top, as a table reads.
    text += layout.sideways ? fmt::format("set yrange [{}:-0.5]\n", number(last))
                            : fmt::format("set xrange [-0.5:{}]\n", number(last));
    if (chart.y_scale == Chart::Scale::linear)
      text += fmt::format("set {}range [0:{}]\n", value_axis, range_max);
    // Bars need no line along them; points down the side are read along one.
    if (layout.sideways && bars) text += "set grid xtics noytics\n";
  } else {
    if (chart.x_scale == Chart::Scale::log2 && chart.y_scale == Chart::Scale::log2) {
      text += "set logscale xy 2\n";
    } else {
      text += scale_command("x", chart.x_scale) + scale_command("y", chart.y_scale);
    }
    if (!chart.x_tics.empty()) {
      const auto [low, high] = x_range(chart);
      text += fmt::format("set xtics {}\n", tics_list(chart.x_tics));
      text += fmt::format("set xrange [{}:{}]\n", number(low), number(high));
      // Slanted up to the left: the first label's end stays in the margin the y axis keeps.
      if (layout.slanted) text += "set xtics rotate by 45 right\n";
    }
    if (chart.y_scale == Chart::Scale::linear) text += "set yrange [0:*]\n";
  }
  // Headroom past the highest point, which would otherwise sit on the frame.
  if (!bars && chart.y_scale == Chart::Scale::linear)
    text += layout.sideways ? "set offsets 0, graph 0.08, 0, 0\n" : "set offsets 0, 0, graph 0.08, 0\n";
  return text;
}

double bar_total(const Chart& chart, std::size_t bar) {
  double total = 0;
  for (const auto& series : chart.series) {
    if (bar < series.points.size() && std::isfinite(series.points[bar].second))
      total += series.points[bar].second;
  }
  return total;
}

// Hatching over the marked bars, and the totals of bars cut at the top of the axis.
std::string bar_marks(const Chart& chart, const Layout& layout) {
  std::string text;
  int object = 0;
  for (std::size_t bar = 0; bar < chart.bar_labels.size(); ++bar) {
    const double total = bar_total(chart, bar);
    const bool cut = std::isfinite(chart.value_max) && total > chart.value_max;
    const double top = cut ? chart.value_max : total;
    const double i = double(bar);
    if (bar < chart.bar_marked.size() && chart.bar_marked[bar]) {
      const std::string corners = layout.sideways ? fmt::format("0,{} to {},{}", number(i - kBarHalfWidth),
                                                                number(top), number(i + kBarHalfWidth))
                                                  : fmt::format("{},0 to {},{}", number(i - kBarHalfWidth),
                                                                number(i + kBarHalfWidth), number(top));
      text += fmt::format(
          "set object {} rect from {} fc rgb '#000000' fillstyle transparent pattern 4 noborder front\n",
          ++object, corners);
    }
    if (cut) {
      const std::string at = layout.sideways
                                 ? fmt::format("{},{} right offset char -0.5,0", number(top), number(i))
                                 : fmt::format("{},{} center offset 0,-1", number(i), number(top));
      text += fmt::format("set label {} at {} front boxed\n",
                          quoted(fmt::format(total >= 100 ? "{:.0f} {}, cut" : "{:.3g} {}, cut", total, chart.value_unit)), at);
    }
  }
  if (!text.empty()) text = "set style textbox opaque noborder\n" + text;
  return text;
}

std::string look_of(const Chart& chart, const ChartSeries& series, std::size_t data_index) {
  switch (series.draw) {
    case ChartSeries::Draw::reference:
      return "lines lc rgb '#000000' dt 2 lw 1.5";
    case ChartSeries::Draw::highlight:
      return "points pt 6 ps 3 lw 2 lc rgb '#000000'";
    case ChartSeries::Draw::lines:
    case ChartSeries::Draw::points:
      break;
  }
  const bool grid = !chart.colours.entries.empty() && series.colour >= 0;
  const int linetype = grid ? series.colour + 1 : int(data_index) + 1;
  std::string look =
      fmt::format("{} lt {} ps {}", series.draw == ChartSeries::Draw::lines ? "linespoints" : "points",
                  linetype, kMarkerSize);
  if (grid) {
    const auto& dashes = grid_dash_types();
    look += fmt::format(" dt {}", dashes[std::size_t(std::max(series.dash, 0)) % dashes.size()]);
  }
  return look;
}

std::string lines_plot(const Chart& chart, const Layout& layout) {
  const std::string data = quoted(chart.name + ".dat");
  const bool grid = !chart.colours.entries.empty();
  const char* xy = layout.sideways ? "2:1" : "1:2";
  std::vector<std::string> clauses;
  std::size_t data_index = 0;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const auto& series = chart.series[i];
    const std::string title = grid || series.title.empty() || layout.key_entries.empty()
                                  ? std::string("notitle")
                                  : "title " + quoted(series.title);
    clauses.push_back(fmt::format("{} index {} using {} with {} {}", i == 0 ? data : "''", i, xy,
                                  look_of(chart, series, data_index), title));
    if (is_data(series)) ++data_index;
  }
  if (grid && !layout.key_entries.empty()) {
    for (std::size_t c = 0; c < chart.colours.entries.size(); ++c)
      clauses.push_back(fmt::format("keyentry with linespoints lt {} dt 1 title {}", c + 1,
                                    quoted(chart.colours.entries[c])));
    const auto& dashes = grid_dash_types();
    for (std::size_t d = 0; d < chart.dashes.entries.size(); ++d)
      clauses.push_back(fmt::format("keyentry with lines lc rgb '#000000' lw 2 dt {} title {}",
                                    dashes[d % dashes.size()], quoted(chart.dashes.entries[d])));
  }
  return "plot " + fmt::format("{}", fmt::join(clauses, ", \\\n     ")) + "\n";
}

// The labels of points, each on its side of its point.
std::string point_labels(const Chart& chart, const Layout& layout) {
  std::string text;
  for (const auto& series : chart.series) {
    for (std::size_t p = 0; p < series.point_labels.size() && p < series.points.size(); ++p) {
      if (series.point_labels[p].empty()) continue;
      const LabelSide side = p < series.label_sides.size() ? series.label_sides[p] : LabelSide::upper_right;
      const bool right = side == LabelSide::upper_right || side == LabelSide::lower_right;
      const bool upper = side == LabelSide::upper_right || side == LabelSide::upper_left;
      auto [x, y] = series.points[p];
      if (layout.sideways) std::swap(x, y);
      text +=
          fmt::format("set label {} at {},{} {} offset char {},{} front\n", quoted(series.point_labels[p]),
                      number(x), number(y), right ? "left" : "right", right ? 0.8 : -0.8, upper ? 0.6 : -0.6);
    }
  }
  return text;
}

// Stacked bars as boxes from each part's start to its end, so that they can lie down the side as well;
// part(c) reads a part a row lacks (NaN) as nothing.
std::string bars_plot(const Chart& chart, const Layout& layout) {
  const std::string data = quoted(chart.name + ".dat");
  std::vector<std::string> clauses;
  std::string start = "0";
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const std::string end = (k == 0 ? "" : start + "+") + fmt::format("part({})", k + 3);
    const std::string across = fmt::format("($1-{0}):($1+{0})", kBarHalfWidth);
    const std::string along = fmt::format("({}):({})", start, end);
    const std::string columns = layout.sideways ? fmt::format("(0):1:{}:{}", along, across)
                                                : fmt::format("1:(0):{}:{}", across, along);
    clauses.push_back(fmt::format(
        "{} using {} with boxxyerror lt {} dt 1 lw 1 fillstyle solid 0.85 border lc rgb '#000000' title {}",
        k == 0 ? data : "''", columns, k + 1, quoted(chart.series[k].title)));
    start = end;
  }
  if (std::any_of(chart.bar_marked.begin(), chart.bar_marked.end(), [](bool m) { return m; }))
    clauses.push_back(
        "keyentry with boxes fillstyle transparent pattern 4 lc rgb '#000000' title 'does not fit its HBM'");
  return "part(c) = valid(c) ? column(c) : 0\nplot " + fmt::format("{}", fmt::join(clauses, ", \\\n     ")) +
         "\n";
}

}  // namespace

bool Chart::empty() const {
  return std::all_of(series.begin(), series.end(), [](const ChartSeries& s) { return s.points.empty(); });
}

std::string chart_script(const Chart& chart) {
  const Layout layout = layout_of(chart);
  std::string text = fmt::format(
      "# {}\n"
      "# Written by `tpusim plot` with the data in {}.dat. Edit it and run `gnuplot {}.gp` in this folder\n"
      "# to redraw {}.png and {}.svg (`tpusim plot` writes it anew).\n",
      chart.title, chart.name, chart.name, chart.name, chart.name);
  text += "set datafile separator \"\\t\"\n";
  text += "set encoding utf8\n";
  text += "set title " + quoted(chart.title) + "\n";
  // Categories down the side take the y axis, the values the x axis.
  text += "set xlabel " + quoted(layout.sideways ? chart.y_label : chart.x_label) + "\n";
  text += "set ylabel " + quoted(layout.sideways ? chart.x_label : chart.y_label) + "\n";
  text += series_linetypes();
  text += "set grid\n";
  text += key_command(layout);
  text += axes(chart, layout);
  text += chart.style == Chart::Style::stacked_bars ? bar_marks(chart, layout) : point_labels(chart, layout);
  const std::string size = fmt::format("{},{}", kChartWidthPx, layout.height_px);
  // Labels hold underscores (exposed_communication) that enhanced text would turn into subscripts.
  text += fmt::format(
      "if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {{\n"
      "  set terminal pngcairo size {} font 'Sans,11' noenhanced background rgb 'white'\n"
      "}} else {{\n"
      "  set terminal png size {} noenhanced\n"
      "}}\n"
      "set output {}\n",
      size, size, quoted(chart.name + ".png"));
  text += chart.style == Chart::Style::stacked_bars ? bars_plot(chart, layout) : lines_plot(chart, layout);
  text += fmt::format("set terminal svg size {} font 'Sans,11' noenhanced background rgb 'white'\n", size);
  text += "set output " + quoted(chart.name + ".svg") + "\n";
  text += "replot\n";
  text += "unset output\n";
  return text;
}

std::string chart_data(const Chart& chart) {
  std::string text = "# " + cell(chart.title) + "\n";
  if (chart.style == Chart::Style::stacked_bars) {
    text += "# bar\tlabel";
    for (const auto& series : chart.series) text += "\t" + cell(series.title);
    text += "\n";
    for (std::size_t bar = 0; bar < chart.bar_labels.size(); ++bar) {
      text += fmt::format("{}\t{}", bar, cell(chart.bar_labels[bar]));
      for (const auto& series : chart.series) {
        const double y = bar < series.points.size() ? series.points[bar].second : NAN;
        text += "\t" + (std::isfinite(y) ? number(y) : std::string("NaN"));
      }
      text += "\n";
    }
    return text;
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const auto& series = chart.series[i];
    if (i > 0) text += "\n\n";  // two blank lines end a block: the next series is the next index
    text += fmt::format("# index {}: {}\n# {}\t{}{}\n", i, cell(series.title), cell(chart.x_label),
                        cell(chart.y_label), series.point_labels.empty() ? "" : "\tlabel");
    for (std::size_t p = 0; p < series.points.size(); ++p) {
      const auto& [x, y] = series.points[p];
      text += number(x) + "\t" + number(y);
      if (!series.point_labels.empty())
        text += "\t" + (p < series.point_labels.size() ? cell(series.point_labels[p]) : std::string());
      text += "\n";
    }
  }
  return text;
}

}  // namespace tpusim::workloads
