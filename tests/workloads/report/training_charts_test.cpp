// The charts of a training sweep as data: the breakdown scaled by the points that fit, throughput in the
// model's own unit, listed points as markers.
#include <catch2/catch.hpp>

#include "sweep_fixtures.hpp"
#include "workloads/report/sweep_charts.hpp"

using namespace tpusim::workloads;

namespace {

// A copy: the charts are a temporary's.
Chart chart_named(const SweepCharts& charts, const std::string& name) {
  for (const auto& chart : charts.charts) {
    if (chart.name == name) return chart;
  }
  FAIL("no chart " << name);
  return {};
}

}  // namespace

TEST_CASE("training charts: the breakdown is scaled by the points that fit, one that does not hatched") {
  // Point 4 does not fit, and takes 2 s against the fitting points' 325 ms at most.
  auto over = tpusim::test::training_sweep_fixture();
  auto& step = over["runs"][4]["step_time"];
  step = {{"step_time_s", 2.0},
          {"compute_s", 1.4},
          {"communication_s", 0.6},
          {"exposed_communication_s", 0.4},
          {"exposed_communication_fraction", 0.2},
          {"idle_s", 0.2}};
  const auto document = sweep_document_from_json(over, "f");
  const Chart breakdown = chart_named(training_charts(document), "breakdown");
  CHECK(breakdown.value_max == Approx(325 * 1.15));
  CHECK(breakdown.value_unit == "ms");
  CHECK(breakdown.bar_marked == std::vector<bool>{false, false, false, false, true});
  CHECK(breakdown.bar_labels[4] == "32 cores, mapping linear (no fit)");
  CHECK(breakdown.bar_labels[0] == "8 cores, mapping rings");
  const std::string script = chart_script(breakdown);
  CHECK_THAT(script, Catch::Contains("set object 1 rect from"));
  CHECK_THAT(script, Catch::Contains("'does not fit its HBM'"));
  CHECK_THAT(script, Catch::Contains("set label '2000 ms, cut'"));
  // Not fitting but not far past the others: the bars' own scale, the point still hatched.
  auto json = tpusim::test::training_sweep_fixture();
  const Chart fitting = chart_named(training_charts(sweep_document_from_json(json, "f")), "breakdown");
  CHECK(std::isnan(fitting.value_max));
  CHECK_THAT(chart_script(fitting), !Catch::Contains("cut"));
  CHECK(fitting.bar_marked[4]);
}

TEST_CASE("training charts: throughput is in the model's examples, tokens for a language model") {
  auto json = tpusim::test::training_sweep_fixture();
  for (auto& run : json["runs"]) {
    run["config"]["example_unit"] = "images";
    run["examples_per_s"] = 100.0;
    run["tokens_per_s"] = 100.0;
  }
  CHECK(chart_named(training_charts(sweep_document_from_json(json, "f")), "throughput").y_label ==
        "images/s per core");
  for (auto& run : json["runs"]) {
    run["config"]["example_unit"] = "sequences";
    run["tokens_per_s"] = 25600.0;
  }
  CHECK(chart_named(training_charts(sweep_document_from_json(json, "f")), "throughput").y_label ==
        "tokens/s per core");
}

TEST_CASE("training charts: points that stand alone are markers, one category each, not a line") {
  const auto json = tpusim::test::with_values(tpusim::test::same_cores_sweep_fixture(),
                                              {"hardware.fusion", "hardware.overlap"},
                                              {{"loop", ""}, {"none", ""}, {"", "none"}, {"", "concurrent"}});
  const SweepCharts charts = training_charts(sweep_document_from_json(json, "f"));
  const Chart step = chart_named(charts, "step_time");
  CHECK(step.categories);
  CHECK(step.title == "Step time per point: fixture-layout");
  REQUIRE(step.series.size() == 1);
  CHECK(step.series[0].draw == ChartSeries::Draw::points);
  CHECK(step.x_tics.size() == 4);
}
