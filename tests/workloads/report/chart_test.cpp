// A chart's gnuplot script and data, as text: what people edit to redraw a plot by hand, and what makes the
// figure fit for a paper (the legend off the data, distinct series, tick labels apart, log-log scaling).
#include "workloads/report/chart.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using tpusim::workloads::Chart;
using tpusim::workloads::ChartSeries;
using tpusim::workloads::LabelSide;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string line_starting(const std::string& script, const std::string& start) {
  for (const auto& line : lines_of(script)) {
    if (line.rfind(start, 0) == 0) return line;
  }
  return "";
}

Chart lines_chart(std::size_t series_count) {
  Chart chart;
  chart.name = "many";
  chart.title = "Many";
  chart.x_label = "x";
  chart.y_label = "y";
  chart.legend_title = "series";
  for (std::size_t i = 0; i < series_count; ++i)
    chart.series.push_back(ChartSeries{"series " + std::to_string(i), {{1, double(i)}, {2, double(i) + 1}}});
  return chart;
}

Chart categories_chart(const std::vector<std::string>& labels) {
  Chart chart = lines_chart(0);
  chart.categories = true;
  ChartSeries series{"all points", {}, ChartSeries::Draw::points};
  for (std::size_t i = 0; i < labels.size(); ++i) {
    chart.x_tics.emplace_back(double(i), labels[i]);
    series.points.emplace_back(double(i), 10.0 + double(i));
  }
  chart.series = {series};
  return chart;
}

}  // namespace

TEST_CASE("chart: lines are one data block per series and a script drawing PNG and SVG from it") {
  Chart chart;
  chart.name = "step_time";
  chart.title = "Step time: it's a test";
  chart.x_label = "cores (log2 scale)";
  chart.y_label = "step time (ms)";
  chart.legend_title = "mapping";
  chart.x_scale = Chart::Scale::log2;
  chart.x_tics = {{8, "8"}, {32, "32"}};
  chart.series = {ChartSeries{"rings", {{8, 250}, {32, 275}}}, ChartSeries{"linear", {{8, 325}}}};
  const std::string data = chart_data(chart);
  CHECK(data ==
        "# Step time: it's a test\n"
        "# index 0: rings\n# cores (log2 scale)\tstep time (ms)\n8\t250\n32\t275\n"
        "\n\n"
        "# index 1: linear\n# cores (log2 scale)\tstep time (ms)\n8\t325\n");
  const std::string script = chart_script(chart);
  CHECK_THAT(script, Catch::Contains("set title 'Step time: it''s a test'\n"));  // a quote doubled
  CHECK_THAT(script, Catch::Contains("set logscale x 2\n"));
  CHECK_THAT(script, Catch::Contains("set xtics ('8' 8, '32' 32)\n"));
  CHECK_THAT(script, Catch::Contains("set output 'step_time.png'\n"));
  CHECK_THAT(script, Catch::Contains("set output 'step_time.svg'\n"));
  CHECK_THAT(script, Catch::Contains("'step_time.dat' index 0 using 1:2 with linespoints lt 1"));
  CHECK_THAT(script, Catch::Contains("'' index 1 using 1:2 with linespoints lt 2 ps 1.3 title 'linear'"));
  CHECK_FALSE(chart.empty());
  chart.series = {ChartSeries{"none", {}}};
  CHECK(chart.empty());
}

TEST_CASE("chart: the legend goes below the plot, never beside or over it, and a lone series has none") {
  const std::string script = chart_script(lines_chart(3));
  const std::string key = line_starting(script, "set key");
  CHECK_THAT(key, Catch::StartsWith("set key outside below center"));
  CHECK_THAT(key, !Catch::Contains("right") && !Catch::Contains("inside"));
  // Its title after a blank line, apart from the x axis' label above it.
  CHECK_THAT(key, Catch::EndsWith("title \"\\nseries\""));
  CHECK_THAT(script, Catch::Contains("title 'series 2'"));
  // One series: its name says no more than the axis label.
  const std::string lone = chart_script(lines_chart(1));
  CHECK_THAT(lone, Catch::Contains("unset key\n"));
  CHECK_THAT(lone, Catch::Contains("notitle"));
  // A legend of many rows makes the image taller, not the plot smaller.
  const auto height = [](const std::string& text) {
    std::smatch match;
    REQUIRE(std::regex_search(text, match, std::regex(R"(pngcairo size 960,(\d+))")));
    return std::stoi(match[1]);
  };
  CHECK(height(chart_script(lines_chart(12))) > height(chart_script(lines_chart(2))));
}

TEST_CASE("chart: twelve series get twelve distinct pairs of colour and dash type, and their own markers") {
  const Chart chart = lines_chart(12);
  const std::string script = chart_script(chart);
  const std::regex linetype(R"(set linetype (\d+) lc rgb '(#[0-9A-Fa-f]{6})' dt (\d+) pt (\d+))");
  std::map<int, std::pair<std::string, std::string>> looks;
  std::set<std::string> markers;
  for (const auto& line : lines_of(script)) {
    std::smatch match;
    if (std::regex_search(line, match, linetype)) {
      looks[std::stoi(match[1])] = {match[2], match[3]};
      markers.insert(match[4]);
    }
  }
  REQUIRE(looks.size() == 12);
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& [type, look] : looks) pairs.insert(look);
  CHECK(pairs.size() == 12);
  CHECK(markers.size() == 12);
  // Series i draws with linetype i + 1.
  for (std::size_t i = 0; i < 12; ++i) {
    INFO(i);
    CHECK_THAT(script, Catch::Contains(fmt::format("index {} using 1:2 with linespoints lt {} ", i, i + 1)));
  }
}

TEST_CASE("chart: a grid of series shows one legend of colours and one of dash types") {
  Chart chart = lines_chart(0);
  chart.colours = {"algorithm", {"ring", "bidir ring"}};
  chart.dashes = {"topology", {"4x4 torus", "8x8 torus"}};
  for (int c = 0; c < 2; ++c) {
    for (int d = 0; d < 2; ++d) {
      ChartSeries series{chart.colours.entries[c] + ", " + chart.dashes.entries[d], {{1, 1}, {2, 2}}};
      series.colour = c, series.dash = d;
      chart.series.push_back(series);
    }
  }
  const std::string script = chart_script(chart);
  CHECK_THAT(line_starting(script, "set key"),
             Catch::EndsWith("title \"\\nalgorithm (colour), topology (dash)\""));
  CHECK_THAT(script, Catch::Contains("index 3 using 1:2 with linespoints lt 2 ps 1.3 dt 2 notitle"));
  CHECK_THAT(script, Catch::Contains("keyentry with linespoints lt 2 dt 1 title 'bidir ring'"));
  CHECK_THAT(script, Catch::Contains("keyentry with lines lc rgb '#000000' lw 2 dt 2 title '8x8 torus'"));
  CHECK_THAT(script, !Catch::Contains("title 'ring, 4x4 torus'"));
}

TEST_CASE("chart: log-log axes and a reference line, as strong scaling draws its ideal") {
  Chart chart = lines_chart(1);
  chart.x_scale = chart.y_scale = Chart::Scale::log2;
  chart.x_tics = {{8, "8"}, {32, "32"}, {128, "128"}};
  chart.series.push_back(ChartSeries{"ideal", {{8, 1}, {128, 16}}, ChartSeries::Draw::reference});
  const std::string script = chart_script(chart);
  CHECK_THAT(script, Catch::Contains("set logscale xy 2\n"));
  CHECK_THAT(script, !Catch::Contains("set yrange [0:*]"));  // log: no zero
  CHECK_THAT(script,
             Catch::Contains("'' index 1 using 1:2 with lines lc rgb '#000000' dt 2 lw 1.5 title 'ideal'"));
  chart.y_scale = Chart::Scale::log10;
  CHECK_THAT(chart_script(chart), Catch::Contains("set logscale x 2\nset logscale y\n"));
}

TEST_CASE("chart: tick labels that would collide are slanted, split in two lines, or go down the side") {
  SECTION("numbers close together on a log axis are slanted") {
    Chart chart = lines_chart(2);
    chart.x_scale = Chart::Scale::log2;
    // Every power of two from 1 KiB to 1 GiB: 21 labels of up to 7 characters.
    const char* units[] = {"KiB", "MiB", "GiB"};
    for (int p = 10; p <= 30; ++p)
      chart.x_tics.emplace_back(double(1LL << p), std::to_string(1 << (p % 10)) + " " + units[p / 10 - 1]);
    CHECK_THAT(chart_script(chart), Catch::Contains("set xtics rotate by 45 right\n"));
    // Every fourth: they stand upright.
    std::vector<std::pair<double, std::string>> fewer;
    for (std::size_t i = 0; i < chart.x_tics.size(); i += 4) fewer.push_back(chart.x_tics[i]);
    chart.x_tics = fewer;
    CHECK_THAT(chart_script(chart), !Catch::Contains("rotate"));
  }
  SECTION("categories that fit stay across, upright") {
    const std::string script = chart_script(categories_chart({"no faults", "1 link down", "2 links down"}));
    CHECK_THAT(script, Catch::Contains("set xtics ('no faults' 0, '1 link down' 1, '2 links down' 2)\n"));
    CHECK_THAT(script, Catch::Contains("set xrange [-0.5:2.5]\n"));
    CHECK_THAT(script, !Catch::Contains("rotate"));
  }
  SECTION("longer ones go in two lines, split after a comma") {
    const std::string script = chart_script(
        categories_chart({"batch 16 × model 2, rings", "batch 8 × model 4, rings", "batch 4 × model 8, rings",
                          "batch 2 × model 16, rings", "batch 1 × model 32, rings"}));
    CHECK_THAT(script, Catch::Contains("set xtics (\"batch 16 × model 2,\\nrings\" 0, "));
  }
  SECTION("many long ones go down the side, the first on top, the values across") {
    std::vector<std::string> labels;
    for (int i = 0; i < 15; ++i) labels.push_back("matrix unit peak rate, vector unit " + std::to_string(i));
    const Chart chart = categories_chart(labels);
    const std::string script = chart_script(chart);
    CHECK_THAT(script, Catch::Contains("set ytics ('matrix unit peak rate, vector unit 0' 0, "));
    CHECK_THAT(script, Catch::Contains("set yrange [14.5:-0.5]\n"));
    CHECK_THAT(script, Catch::Contains("set xrange [0:*]\n"));
    CHECK_THAT(script, Catch::Contains("set xlabel 'y'\nset ylabel 'x'\n"));
    CHECK_THAT(script, Catch::Contains("index 0 using 2:1 with points"));
  }
}

TEST_CASE("chart: stacked bars are boxes from each part's start to its end, one row of data per bar") {
  Chart chart;
  chart.name = "breakdown";
  chart.title = "Breakdown";
  chart.style = Chart::Style::stacked_bars;
  chart.bar_labels = {"#0 a\tb", "#1 c"};
  chart.series = {ChartSeries{"compute", {{0, 7}, {1, 8}}}, ChartSeries{"idle", {{0, 1}, {1, NAN}}}};
  CHECK(chart_data(chart) == "# Breakdown\n# bar\tlabel\tcompute\tidle\n0\t#0 a b\t7\t1\n1\t#1 c\t8\tNaN\n");
  const std::string script = chart_script(chart);
  CHECK_THAT(script, Catch::Contains("set xtics ('#0 a b' 0, '#1 c' 1)\n"));
  CHECK_THAT(script, Catch::Contains("part(c) = valid(c) ? column(c) : 0\n"));
  CHECK_THAT(script, Catch::Contains("plot 'breakdown.dat' using 1:(0):($1-0.35):($1+0.35):(0):(part(3)) "
                                     "with boxxyerror lt 1"));
  CHECK_THAT(script, Catch::Contains("'' using 1:(0):($1-0.35):($1+0.35):(part(3)):(part(3)+part(4)) "
                                     "with boxxyerror lt 2"));
  CHECK_THAT(script, !Catch::Contains("set object"));
}

TEST_CASE("chart: bars scaled by value_max are cut there with their total written, marked ones hatched") {
  Chart chart;
  chart.name = "breakdown";
  chart.style = Chart::Style::stacked_bars;
  chart.bar_labels = {"fits", "does not"};
  chart.series = {ChartSeries{"compute", {{0, 0.2}, {1, 4.0}}}, ChartSeries{"idle", {{0, 0.1}, {1, 0.65}}}};
  chart.bar_marked = {false, true};
  chart.value_max = 0.35;
  chart.value_unit = "s";
  const std::string script = chart_script(chart);
  CHECK_THAT(script, Catch::Contains("set yrange [0:0.35]\n"));
  CHECK_THAT(script, Catch::Contains("set object 1 rect from 0.65,0 to 1.35,0.35 fc rgb '#000000' fillstyle "
                                     "transparent pattern 4 noborder front\n"));
  CHECK_THAT(script, Catch::Contains("set label '4.65 s, cut' at 1,0.35 center"));
  CHECK_THAT(script, Catch::Contains("keyentry with boxes fillstyle transparent pattern 4 lc rgb '#000000' "
                                     "title 'does not fit its HBM'"));
}

TEST_CASE("chart: point labels are drawn on the side given, and kept in the data") {
  Chart chart = lines_chart(0);
  ChartSeries front{"front", {{1, 5}, {2, 4}}};
  front.point_labels = {"batch 8 × model 4", ""};
  front.label_sides = {LabelSide::lower_left};
  chart.series = {front, ChartSeries{"own", {{2, 4}}, ChartSeries::Draw::highlight}};
  const std::string script = chart_script(chart);
  CHECK_THAT(script,
             Catch::Contains("set label 'batch 8 × model 4' at 1,5 right offset char -0.8,-0.6 front\n"));
  CHECK_THAT(script, !Catch::Contains("at 2,4"));
  CHECK_THAT(script, Catch::Contains("with points pt 6 ps 3 lw 2 lc rgb '#000000' title 'own'"));
  CHECK_THAT(chart_data(chart), Catch::Contains("\tlabel\n1\t5\tbatch 8 × model 4\n2\t4\t\n"));
}
