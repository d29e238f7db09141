// The search's plot as data: the Pareto front labelled with its meshes, the config's own layout ringed and
// labelled, axes in the units and scales their values read best in.
#include "workloads/search/pareto_chart.hpp"

#include <catch2/catch.hpp>

using namespace tpusim::workloads;

namespace {

CandidateOutcome fitting(const std::string& mesh, double memory_mib, double step_ms) {
  CandidateOutcome o;
  o.candidate.mesh_shape = mesh;
  o.candidate.layout = "batch:batch";
  o.candidate.mapping = "rings";
  o.status = CandidateOutcome::Status::fits;
  o.memory_per_core_bytes = std::uint64_t(memory_mib * (1 << 20));
  o.step_time_s = step_ms / 1e3;
  return o;
}

SearchResult result_of(std::vector<CandidateOutcome> outcomes, std::vector<std::size_t> pareto) {
  SearchResult result;
  result.outcomes = std::move(outcomes);
  result.pareto = std::move(pareto);
  return result;
}

const ChartSeries* series_titled(const Chart& chart, const std::string& start) {
  for (const auto& series : chart.series) {
    if (series.title.rfind(start, 0) == 0) return &series;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("pareto chart: the front's points carry their mesh, the config's own layout is ringed and named") {
  SearchResult result = result_of({fitting("batch:4;model:8", 33, 2.7), fitting("batch:8;model:4", 34, 2.1),
                                   fitting("batch:32", 115, 3.0), fitting("batch:16;model:2", 58, 2.45)},
                                  {0, 1});
  result.base = fitting("batch:16;model:2", 58, 2.45);
  const Chart chart = pareto_chart(result);
  const ChartSeries* front = series_titled(chart, "Pareto front");
  REQUIRE(front != nullptr);
  CHECK(front->point_labels == std::vector<std::string>{"batch 4 × model 8", "batch 8 × model 4"});
  CHECK(front->label_sides.size() == 2);
  const ChartSeries* own = series_titled(chart, "the config's own layout");
  REQUIRE(own != nullptr);
  CHECK(own->draw == ChartSeries::Draw::highlight);
  CHECK(own->point_labels == std::vector<std::string>{"config's own: batch 16 × model 2"});
  CHECK(own->points.size() == 1);
  const std::string script = chart_script(chart);
  CHECK_THAT(script, Catch::Contains("set label 'batch 4 × model 8' at 33,2.7 "));
  CHECK_THAT(script, Catch::Contains("set label 'config''s own: batch 16 × model 2' at 58,2.45 "));
  // Memory under a GiB reads in MiB, a step under a second in ms.
  CHECK(chart.x_label == "memory per core (MiB)");
  CHECK(chart.y_label == "step time (ms, simulated)");
}

TEST_CASE("pareto chart: on the front, the config's own label stands for the front's") {
  SearchResult result =
      result_of({fitting("batch:8;model:64", 1434, 210), fitting("batch:16;model:32", 1628, 198)}, {0, 1});
  result.base = result.outcomes[1];
  const Chart chart = pareto_chart(result);
  const ChartSeries* front = series_titled(chart, "Pareto front");
  REQUIRE(front != nullptr);
  CHECK(front->point_labels == std::vector<std::string>{"batch 8 × model 64", ""});
  CHECK(chart.x_label == "memory per core (GiB)");
  CHECK(chart.x_scale == Chart::Scale::linear);
}

TEST_CASE("pareto chart: values over more than a decade go on log axes") {
  const SearchResult result =
      result_of({fitting("batch:4;model:8", 33, 2.7), fitting("batch:32", 430, 28)}, {0});
  const Chart chart = pareto_chart(result);
  CHECK(chart.x_scale == Chart::Scale::log10);
  CHECK(chart.y_scale == Chart::Scale::log10);
  CHECK_THAT(chart.x_label, Catch::Contains("log scale"));
  CHECK(series_titled(chart, "the config's own layout") == nullptr);  // it leaves its mesh open
}
