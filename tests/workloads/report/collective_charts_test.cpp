// The charts of a collective study as data: a grid of algorithms and topologies drawn as colours and dash
// types, each with a legend of its own, in words.
#include <catch2/catch.hpp>

#include "sweep_fixtures.hpp"
#include "workloads/report/sweep_charts.hpp"

using namespace tpusim::workloads;

TEST_CASE("collective charts: algorithms are colours, topologies dash types, each with a legend") {
  const auto document = sweep_document_from_json(tpusim::test::collective_sweep_fixture(), "f");
  const SweepCharts charts = collective_charts(document);
  REQUIRE(charts.charts.size() == 4);
  const Chart& busbw = charts.charts[0];
  CHECK(busbw.name == "busbw_allreduce");
  CHECK(busbw.colours.title == "algorithm");
  CHECK(busbw.colours.entries == std::vector<std::string>{"ring", "bidir ring"});
  // The group axes follow from the topology: they tell no series apart.
  CHECK(busbw.dashes.title == "topology");
  CHECK(busbw.dashes.entries == std::vector<std::string>{"ring-8", "torus-8x8"});
  REQUIRE(busbw.series.size() == 4);
  CHECK(busbw.series[3].title == "bidir ring, torus-8x8");
  CHECK(busbw.series[3].colour == 1);
  CHECK(busbw.series[3].dash == 1);
  CHECK(busbw.x_scale == Chart::Scale::log2);
}

TEST_CASE("collective charts: one topology leaves a legend of algorithms alone") {
  auto json = tpusim::test::collective_sweep_fixture();
  auto& runs = json["runs"];
  for (std::size_t i = runs.size(); i-- > 0;) {
    if (runs[i]["topology"] != "ring-8") runs.erase(runs.begin() + std::ptrdiff_t(i));
  }
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i]["point"] = i;
  json["sweep"]["points"] = runs.size();
  json["sweep"]["vary"][1]["values"] = {"ring-8"};
  const SweepCharts charts = collective_charts(sweep_document_from_json(json, "f"));
  REQUIRE_FALSE(charts.charts.empty());
  const Chart& busbw = charts.charts[0];
  CHECK(busbw.colours.entries.empty());
  CHECK(busbw.legend_title == "algorithm");
  REQUIRE(busbw.series.size() == 2);
  CHECK(busbw.series[1].title == "bidir ring");
}
