// Where a training sweep's points go: against cores with one series per strategy, or against the first
// varied key when every point has the same cores.
#include "workloads/report/plot_layout.hpp"

#include <catch2/catch.hpp>

#include "sweep_fixtures.hpp"

using tpusim::workloads::sweep_document_from_json;

namespace {

std::vector<const tpusim::workloads::SweepRow*> pointers(const tpusim::workloads::SweepDocument& document) {
  std::vector<const tpusim::workloads::SweepRow*> rows;
  for (const auto& row : document.rows) rows.push_back(&row);
  return rows;
}

}  // namespace

TEST_CASE("plot layout: points over core counts go against cores, one series per strategy") {
  const auto document = sweep_document_from_json(tpusim::test::training_sweep_fixture(), "f");
  const auto layout = plot_layout(document, pointers(document));
  CHECK(layout.by_cores);
  // hardware.topology sets the cores, so the strategy is the mapping alone.
  CHECK(layout.legend_title == "mesh.mapping");
  CHECK(layout.series_titles == std::vector<std::string>{"rings", "linear"});
  CHECK(layout.x_of == std::vector<double>{8, 32, 128, 8, 32, 128});
  CHECK(layout.series_of == std::vector<std::size_t>{0, 0, 0, 1, 1, 1});
  REQUIRE(layout.x_tics.size() == 3);
  CHECK(layout.x_tics[2] == std::make_pair(128.0, std::string("128")));
}

TEST_CASE("plot layout: zipped keys that both set the cores leave the others as the strategy") {
  auto json = tpusim::test::training_sweep_fixture();
  // A mesh shape that follows the topology (as lm-scaling's zip gives) sets the cores as well.
  json["sweep"]["vary"].push_back({{"key", "mesh.shape"}, {"values", {"batch:8", "batch:32", "batch:128"}}});
  for (auto& run : json["runs"]) {
    run["values"].push_back({{"key", "mesh.shape"}, {"value", run["config"]["mesh_shape"]}});
  }
  const auto document = sweep_document_from_json(json, "f");
  const auto layout = plot_layout(document, pointers(document));
  CHECK(layout.by_cores);
  CHECK(layout.legend_title == "mesh.mapping");
}

TEST_CASE("plot layout: on one core count the first varied key is the x axis, the others the series") {
  const auto document = sweep_document_from_json(tpusim::test::same_cores_sweep_fixture(), "f");
  const auto layout = plot_layout(document, pointers(document));
  CHECK_FALSE(layout.by_cores);
  CHECK(layout.x_label == "mesh.shape");
  CHECK(layout.legend_title == "mesh.mapping");
  CHECK(layout.series_titles == std::vector<std::string>{"rings", "linear"});
  REQUIRE(layout.x_tics.size() == 3);
  CHECK(layout.x_tics[0] == std::make_pair(0.0, std::string("batch:16;model:2")));
  CHECK(layout.x_of == std::vector<double>{0, 0, 1, 1, 2, 2});
}
