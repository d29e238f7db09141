// The scaling figures of a sweep over core counts: strong scaling as speedup on log-log axes against the
// ideal, weak scaling as efficiency against the ideal 100%, each series named by its kind and in words.
#include <catch2/catch.hpp>

#include "sweep_fixtures.hpp"
#include "workloads/report/sweep_charts.hpp"

using namespace tpusim::workloads;

namespace {

const Chart* scaling_chart_named(const SweepCharts& charts, const std::string& name) {
  for (const auto& chart : charts.charts) {
    if (chart.name == name) return &chart;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("scaling charts: strong scaling is speedup against cores on log-log axes, with the ideal line") {
  const auto document = sweep_document_from_json(tpusim::test::scaling_sweep_fixture(), "f");
  const SweepCharts charts = training_charts(document);
  const Chart* speedup = scaling_chart_named(charts, "speedup");
  REQUIRE(speedup != nullptr);
  CHECK(speedup->x_scale == Chart::Scale::log2);
  CHECK(speedup->y_scale == Chart::Scale::log2);
  REQUIRE(speedup->series.size() == 2);
  CHECK(speedup->series[0].title == "strong, batch 128");
  CHECK(speedup->series[0].points == std::vector<std::pair<double, double>>{{8, 1}, {32, 2.5}, {128, 4}});
  const ChartSeries& ideal = speedup->series[1];
  CHECK(ideal.draw == ChartSeries::Draw::reference);
  CHECK_THAT(ideal.title, Catch::StartsWith("ideal"));
  CHECK(ideal.points == std::vector<std::pair<double, double>>{{8, 1}, {128, 16}});
  const std::string script = chart_script(*speedup);
  CHECK_THAT(script, Catch::Contains("set logscale xy 2\n"));
  CHECK_THAT(script, Catch::Contains("title 'ideal (linear speedup)'"));
}

TEST_CASE("scaling charts: weak scaling is parallel efficiency against cores, with the ideal 100%") {
  const auto document = sweep_document_from_json(tpusim::test::scaling_sweep_fixture(), "f");
  const SweepCharts charts = training_charts(document);
  const Chart* efficiency = scaling_chart_named(charts, "efficiency");
  REQUIRE(efficiency != nullptr);
  CHECK_THAT(efficiency->y_label, Catch::Contains("efficiency (%"));
  CHECK(efficiency->x_scale == Chart::Scale::log2);
  CHECK(efficiency->y_scale == Chart::Scale::linear);
  REQUIRE(efficiency->series.size() == 2);
  // Named by the kind and by what varies, in words: no YAML braces.
  CHECK(efficiency->series[0].title == "weak, 8 per batch core");
  REQUIRE(efficiency->series[0].points.size() == 3);
  CHECK(efficiency->series[0].points[2].second == Approx(80));
  CHECK(efficiency->series[1].draw == ChartSeries::Draw::reference);
  CHECK(efficiency->series[1].points == std::vector<std::pair<double, double>>{{8, 100}, {128, 100}});
  // The strong series is not on it, nor the weak one on the speedup chart.
  for (const auto& chart : charts.charts) {
    for (const auto& series : chart.series) {
      INFO(chart.name << ": " << series.title);
      CHECK(series.title.find_first_of("{}") == std::string::npos);
      if (chart.name == "efficiency") CHECK_THAT(series.title, !Catch::StartsWith("strong"));
      if (chart.name == "speedup") CHECK_THAT(series.title, !Catch::StartsWith("weak"));
    }
  }
  // Drawn after MFU, before the breakdown.
  std::vector<std::string> names;
  for (const auto& chart : charts.charts) names.push_back(chart.name);
  CHECK(names ==
        std::vector<std::string>{"step_time", "throughput", "mfu", "speedup", "efficiency", "breakdown"});
}

TEST_CASE("scaling charts: a sweep without scaling figures, or on one core count, draws none") {
  for (const auto& fixture :
       {tpusim::test::training_sweep_fixture(), tpusim::test::same_cores_sweep_fixture()}) {
    const auto document = sweep_document_from_json(fixture, "f");
    const SweepCharts charts = training_charts(document);
    CHECK(scaling_chart_named(charts, "speedup") == nullptr);
    CHECK(scaling_chart_named(charts, "efficiency") == nullptr);
  }
}
