#include "workloads/report/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tpusim::workloads {
namespace {

// Both images the same size, wide enough for a legend beside the plot.
constexpr const char* kSize = "960,600";
constexpr const char* kColours =
    "set linetype 1 lc rgb '#0072B2'\n"
    "set linetype 2 lc rgb '#D55E00'\n"
    "set linetype 3 lc rgb '#009E73'\n"
    "set linetype 4 lc rgb '#CC79A7'\n"
    "set linetype 5 lc rgb '#56B4E9'\n"
    "set linetype 6 lc rgb '#E69F00'\n"
    "set linetype 7 lc rgb '#000000'\n"
    "set linetype 8 lc rgb '#999999'\n"
    "set linetype cycle 8\n";
// Filled markers that stay distinct in print, cycled over the series.
constexpr int kPointTypes[] = {7, 5, 9, 11, 13, 15};

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

std::string number(double value) { return fmt::format("{:.10g}", value); }

bool long_labels(const std::vector<std::string>& labels) {
  return std::any_of(labels.begin(), labels.end(), [](const std::string& l) { return l.size() > 8; });
}

std::string axes(const Chart& chart) {
  std::string text;
  if (chart.log2_x) text += "set logscale x 2\n";
  if (chart.log_y) text += "set logscale y\n";
  std::vector<std::string> labels;
  if (!chart.x_tics.empty()) {
    std::vector<std::string> tics;
    for (const auto& [x, label] : chart.x_tics) {
      tics.push_back(quoted(label) + " " + number(x));
      labels.push_back(label);
    }
    text += "set xtics (" + fmt::format("{}", fmt::join(tics, ", ")) + ")\n";
    // The points sit inside the frame rather than on it.
    double low = chart.x_tics.front().first, high = chart.x_tics.front().first;
    for (const auto& tic : chart.x_tics) low = std::min(low, tic.first), high = std::max(high, tic.first);
    if (chart.log2_x && low > 0) {
      text += fmt::format("set xrange [{}:{}]\n", number(low / 1.5), number(high * 1.5));
    } else if (!chart.log2_x) {
      text += fmt::format("set xrange [{}:{}]\n", number(low - 0.5), number(high + 0.5));
    }
  }
  if (chart.style == Chart::Style::stacked_bars) labels = chart.bar_labels;
  // Slanted down to the right, into the margin the legend keeps free, so the first label is not cut off.
  if (long_labels(labels)) text += "set xtics rotate by -30 left\n";
  if (!chart.log_y) text += "set yrange [0:*]\n";
  // Headroom above the highest point, which would otherwise sit on the frame.
  if (chart.style == Chart::Style::lines && !chart.log_y) text += "set offsets 0, 0, graph 0.08, 0\n";
  return text;
}

std::string plot_command(const Chart& chart) {
  const std::string data = quoted(chart.name + ".dat");
  std::vector<std::string> clauses;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const auto& series = chart.series[i];
    if (chart.style == Chart::Style::stacked_bars) {
      clauses.push_back(fmt::format("{} using {}{} title {}", i == 0 ? data : "''", i + 2,
                                    i == 0 ? ":xtic(1)" : "", quoted(series.title)));
    } else {
      clauses.push_back(fmt::format("{} index {} using 1:2 with {} pt {} ps 1.3 title {}",
                                    i == 0 ? data : "''", i, series.joined ? "linespoints lw 2" : "points",
                                    kPointTypes[i % std::size(kPointTypes)], quoted(series.title)));
    }
  }
  return "plot " + fmt::format("{}", fmt::join(clauses, ", \\\n     ")) + "\n";
}

}  // namespace

bool Chart::empty() const {
  return std::all_of(series.begin(), series.end(), [](const ChartSeries& s) { return s.points.empty(); });
}

std::string chart_script(const Chart& chart) {
  std::string text = fmt::format(
      "# {}\n"
      "# Written by `tpusim plot` with the data in {}.dat. Edit it and run `gnuplot {}.gp` in this folder\n"
      "# to redraw {}.png and {}.svg (`tpusim plot` writes it anew).\n",
      chart.title, chart.name, chart.name, chart.name, chart.name);
  text += "set datafile separator \"\\t\"\n";
  text += "set encoding utf8\n";
  text += "set title " + quoted(chart.title) + "\n";
  text += "set xlabel " + quoted(chart.x_label) + "\n";
  text += "set ylabel " + quoted(chart.y_label) + "\n";
  // Colours that colour-blind readers tell apart (Okabe and Ito's), without their yellow, faint on white.
  text += kColours;
  text += "set grid\n";
  text += "set key outside right top Left reverse";
  if (!chart.legend_title.empty()) text += " title " + quoted(chart.legend_title);
  text += "\n";
  if (chart.style == Chart::Style::stacked_bars) {
    text +=
        "set style data histograms\n"
        "set style histogram rowstacked\n"
        "set style fill solid 0.85 border -1\n"
        "set boxwidth 0.7\n";
  }
  text += axes(chart);
  // Labels hold underscores (exposed_communication) that enhanced text would turn into subscripts.
  text += fmt::format(
      "if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {{\n"
      "  set terminal pngcairo size {} font 'Sans,11' noenhanced background rgb 'white'\n"
      "}} else {{\n"
      "  set terminal png size {} noenhanced\n"
      "}}\n"
      "set output {}\n",
      kSize, kSize, quoted(chart.name + ".png"));
  text += plot_command(chart);
  text += fmt::format("set terminal svg size {} font 'Sans,11' noenhanced background rgb 'white'\n", kSize);
  text += "set output " + quoted(chart.name + ".svg") + "\n";
  text += "replot\n";
  text += "unset output\n";
  return text;
}

std::string chart_data(const Chart& chart) {
  std::string text = "# " + cell(chart.title) + "\n";
  if (chart.style == Chart::Style::stacked_bars) {
    text += "# label";
    for (const auto& series : chart.series) text += "\t" + cell(series.title);
    text += "\n";
    for (std::size_t bar = 0; bar < chart.bar_labels.size(); ++bar) {
      // Quoted, or a label such as "#3 ..." would make the row a comment.
      std::string label = cell(chart.bar_labels[bar]);
      label.erase(std::remove(label.begin(), label.end(), '"'), label.end());
      text += "\"" + label + "\"";
      for (const auto& series : chart.series) {
        const double y = bar < series.points.size() ? series.points[bar].second : NAN;
        text += "\t" + (std::isfinite(y) ? number(y) : std::string("NaN"));
      }
      text += "\n";
    }
    return text;
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    if (i > 0) text += "\n\n";  // two blank lines end a block: the next series is the next index
    text += fmt::format("# index {}: {}\n# {}\t{}\n", i, cell(chart.series[i].title), cell(chart.x_label),
                        cell(chart.y_label));
    for (const auto& [x, y] : chart.series[i].points) text += number(x) + "\t" + number(y) + "\n";
  }
  return text;
}

}  // namespace tpusim::workloads
