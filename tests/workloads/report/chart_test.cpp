// A chart's gnuplot script and data, as text: what people edit to redraw a plot by hand.
#include "workloads/report/chart.hpp"

#include <catch2/catch.hpp>

using tpusim::workloads::Chart;
using tpusim::workloads::ChartSeries;

TEST_CASE("chart: lines are one data block per series and a script drawing PNG and SVG from it") {
  Chart chart;
  chart.name = "step_time";
  chart.title = "Step time: it's a test";
  chart.x_label = "cores (log2 scale)";
  chart.y_label = "step time (ms)";
  chart.legend_title = "mesh.mapping";
  chart.log2_x = true;
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
  CHECK_THAT(script, Catch::Contains("set key outside right top Left reverse title 'mesh.mapping'\n"));
  CHECK_THAT(script, Catch::Contains("set output 'step_time.png'\n"));
  CHECK_THAT(script, Catch::Contains("set output 'step_time.svg'\n"));
  CHECK_THAT(script, Catch::Contains("'step_time.dat' index 0 using 1:2 with linespoints"));
  CHECK_THAT(script,
             Catch::Contains("'' index 1 using 1:2 with linespoints lw 2 pt 5 ps 1.3 title 'linear'"));
  CHECK_FALSE(chart.empty());
  chart.series = {ChartSeries{"none", {}}};
  CHECK(chart.empty());
}

TEST_CASE("chart: stacked bars are one row per bar, one column per part") {
  Chart chart;
  chart.name = "breakdown";
  chart.title = "Breakdown";
  chart.style = Chart::Style::stacked_bars;
  chart.bar_labels = {"#0 a\tb", "#1 c"};
  chart.series = {ChartSeries{"compute", {{0, 7}, {1, 8}}}, ChartSeries{"idle", {{0, 1}, {1, 0.5}}}};
  CHECK(chart_data(chart) == "# Breakdown\n# label\tcompute\tidle\n\"#0 a b\"\t7\t1\n\"#1 c\"\t8\t0.5\n");
  const std::string script = chart_script(chart);
  CHECK_THAT(script, Catch::Contains("set style histogram rowstacked\n"));
  CHECK_THAT(script,
             Catch::Contains(
                 "plot 'breakdown.dat' using 2:xtic(1) title 'compute', \\\n     '' using 3 title 'idle'\n"));
}
