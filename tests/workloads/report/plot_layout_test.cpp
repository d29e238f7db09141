// Where a training sweep's points go: against cores with one series per strategy, or against the first
// varied key when every point has the same cores, or one category per point when the keys are no grid; and
// everything in words.
#include "workloads/report/plot_layout.hpp"

#include <catch2/catch.hpp>

#include "sweep_fixtures.hpp"

using tpusim::test::with_values;
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
  CHECK(layout.ordered);
  // hardware.topology sets the cores, so the strategy is the mapping alone.
  CHECK(layout.legend_title == "mapping");
  CHECK(layout.series_titles == std::vector<std::string>{"rings", "linear"});
  CHECK(layout.series_settings == std::vector<std::string>{"mapping rings", "mapping linear"});
  CHECK(layout.x_of == std::vector<double>{8, 32, 128, 8, 32, 128});
  CHECK(layout.series_of == std::vector<std::size_t>{0, 0, 0, 1, 1, 1});
  CHECK(layout.row_labels[4] == "32 cores, mapping linear");
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
  CHECK(layout.legend_title == "mapping");
}

TEST_CASE("plot layout: on one core count the first varied key is the x axis, the others the series") {
  const auto document = sweep_document_from_json(tpusim::test::same_cores_sweep_fixture(), "f");
  const auto layout = plot_layout(document, pointers(document));
  CHECK_FALSE(layout.by_cores);
  CHECK(layout.ordered);
  CHECK(layout.x_label == "mesh");
  CHECK(layout.legend_title == "mapping");
  CHECK(layout.series_titles == std::vector<std::string>{"rings", "linear"});
  REQUIRE(layout.x_tics.size() == 3);
  CHECK(layout.x_tics[0] == std::make_pair(0.0, std::string("batch 16 × model 2")));
  CHECK(layout.x_of == std::vector<double>{0, 0, 1, 1, 2, 2});
  CHECK(layout.row_labels[1] == "batch 16 × model 2, mapping linear");
}

TEST_CASE("plot layout: series are named in words, with no YAML in them") {
  // Strong and weak scaling in one sweep: a global batch, or one per processor of the batch axis.
  const auto json = with_values(tpusim::test::training_sweep_fixture(), {"model.batch", "hardware.topology"},
                                {{"128", "tpu-v2-8"},
                                 {"128", "tpu-v2-32"},
                                 {"128", "tpu-v2-128"},
                                 {"{per: batch, value: 8}", "tpu-v2-8"},
                                 {"{per: batch, value: 8}", "tpu-v2-32"},
                                 {"{per: batch, value: 8}", "tpu-v2-128"}});
  const auto document = sweep_document_from_json(json, "f");
  const auto layout = plot_layout(document, pointers(document));
  CHECK(layout.legend_title == "batch");
  CHECK(layout.series_titles == std::vector<std::string>{"128", "8 per batch core"});
  CHECK(layout.series_settings == std::vector<std::string>{"batch 128", "8 per batch core"});
  for (const auto* texts : {&layout.series_titles, &layout.series_settings, &layout.row_labels}) {
    for (const auto& text : *texts) {
      INFO(text);
      CHECK(text.find_first_of("{}") == std::string::npos);
    }
  }
}

TEST_CASE("plot layout: a key that follows from one named before it names nothing, unless that one defers") {
  SECTION("zipped keys: the first names the series") {
    const auto json = with_values(tpusim::test::same_cores_sweep_fixture(),
                                  {"model.image_size", "mesh.shape", "mesh.layout", "model.batch"},
                                  {{"512", "batch:32", "batch:batch", "32"},
                                   {"512", "rows:32", "h:rows", "8"},
                                   {"1024", "batch:32", "batch:batch", "32"},
                                   {"1024", "rows:32", "h:rows", "8"}});
    const auto document = sweep_document_from_json(json, "f");
    const auto layout = plot_layout(document, pointers(document));
    CHECK(layout.x_label == "image size");
    CHECK(layout.legend_title == "mesh");
    CHECK(layout.series_titles == std::vector<std::string>{"batch 32", "rows 32"});
    CHECK(layout.row_labels[3] == "image size 1024, rows 32");
  }
  SECTION("a mesh from the mapping: the mapping names its series") {
    const auto json = with_values(tpusim::test::training_sweep_fixture(),
                                  {"mesh.shape", "mesh.mapping", "hardware.topology"},
                                  {{"batch:*;model:1", "rings", "tpu-v2-8"},
                                   {"batch:*;model:1", "rings", "tpu-v2-32"},
                                   {"batch:*;model:1", "rings", "tpu-v2-128"},
                                   {"from_mapping", "model=core+x;batch=y", "tpu-v2-8"},
                                   {"from_mapping", "model=core+x;batch=y", "tpu-v2-32"},
                                   {"from_mapping", "model=core+x;batch=y", "tpu-v2-128"}});
    const auto document = sweep_document_from_json(json, "f");
    const auto layout = plot_layout(document, pointers(document));
    CHECK(layout.legend_title == "mesh, mapping");
    CHECK(layout.series_titles ==
          std::vector<std::string>{"batch all × model 1", "model on core+x, batch on y"});
  }
}

TEST_CASE(
    "plot layout: points that are no grid of their keys each take a category, labelled by what they set") {
  // As lm-s5-mechanisms lists its points: each sets a key or two, the mesh filled in from the base.
  const auto json = with_values(tpusim::test::same_cores_sweep_fixture(),
                                {"hardware.fusion", "hardware.overlap", "mesh.shape"},
                                {{"loop", "", "batch:16;model:2"},
                                 {"none", "", "batch:16;model:2"},
                                 {"", "none", "batch:16;model:2"},
                                 {"", "", "batch:4;model:8"},
                                 {"", "concurrent", "batch:4;model:8"},
                                 {"", "concurrent", "batch:16;model:2"}});
  const auto document = sweep_document_from_json(json, "f");
  const auto layout = plot_layout(document, pointers(document));
  CHECK_FALSE(layout.by_cores);
  CHECK_FALSE(layout.ordered);
  CHECK(layout.series_titles == std::vector<std::string>{"all points"});
  REQUIRE(layout.x_tics.size() == 6);
  CHECK(layout.x_tics[0].second == "fusion loop");
  CHECK(layout.x_tics[2].second == "overlap none");
  CHECK(layout.x_tics[3].second == "batch 4 × model 8");
  CHECK(layout.x_tics[4].second == "overlap concurrent, batch 4 × model 8");
  CHECK(layout.x_of == std::vector<double>{0, 1, 2, 3, 4, 5});
}
