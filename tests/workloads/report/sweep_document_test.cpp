// Reading a sweep's sweep.json back for its plots: rows found by field name at any depth, varied values,
// the kind of sweep, and one clear InputError for a folder that is not a sweep's.
#include "workloads/report/sweep_document.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>

#include "sweep_fixtures.hpp"
#include "topologies/support/input_error.hpp"

using tpusim::test::TempFolder;
using tpusim::workloads::read_sweep_document;

TEST_CASE("sweep document: a training sweep's rows, fields at any depth and varied values") {
  const TempFolder temp;
  const auto document = read_sweep_document(temp.sweep_folder("s", tpusim::test::training_sweep_fixture()));
  CHECK(document.name == "fixture-scaling");
  CHECK(document.base == "lm-s0");
  CHECK(document.kind == "training");
  CHECK(document.tpusim_version == "0.1.0");
  CHECK_FALSE(document.written.empty());
  CHECK(document.varied_keys() == std::vector<std::string>{"mesh.mapping", "hardware.topology"});
  REQUIRE(document.rows.size() == 6);
  const auto& first = document.rows[0];
  CHECK(first.label == "#0 rings tpu-v2-8");
  CHECK(first.number({"cores"}) == 8);
  CHECK(first.number({"step_time_s"}) == Approx(0.25));
  CHECK(first.number({"memory_per_core_bytes", "total_bytes"}) == double(1LL << 30));
  CHECK(first.value_of("hardware.topology") == "tpu-v2-8");
  CHECK(first.text("mesh_shape") == "batch:8");
  CHECK(std::isnan(first.number({"tokens_per_s"})));
  CHECK(first.fits());
  CHECK_FALSE(document.rows[4].fits());
  CHECK(document.rows[5].error == "the fixture's point 5 failed");
}

TEST_CASE("sweep document: a collective study is one by its kind, or by busbw rows without step times") {
  auto json = tpusim::test::collective_sweep_fixture();
  const TempFolder temp;
  CHECK(read_sweep_document(temp.sweep_folder("a", json)).collectives());
  json["sweep"].erase("kind");
  // Flat rows under another array name, as a later sweep runner may write them.
  json["records"] = json["runs"];
  json.erase("runs");
  const auto document = read_sweep_document(temp.sweep_folder("b", json));
  CHECK(document.collectives());
  REQUIRE(document.rows.size() == 48);
  CHECK(document.rows[0].text("op") == "allreduce");
  CHECK(document.rows[0].value_of("op") == "allreduce");  // varied values read from the row's own fields
}

TEST_CASE("sweep document: a folder that is not a sweep's is one InputError naming it") {
  const TempFolder temp;
  const std::string missing = (temp.path() / "missing").string();
  CHECK_THROWS_MATCHES(
      read_sweep_document(missing), tpusim::InputError,
      Catch::Message("'" + missing +
                     "' is not a folder: give the output folder of a sweep (it holds sweep.json)"));
  std::filesystem::create_directory(temp.path() / "empty");
  CHECK_THROWS_WITH(read_sweep_document((temp.path() / "empty").string()),
                    Catch::Contains("holds no sweep.json"));
  std::filesystem::create_directory(temp.path() / "bad");
  std::ofstream(temp.path() / "bad/sweep.json") << "{\"runs\": [";
  CHECK_THROWS_WITH(read_sweep_document((temp.path() / "bad").string()),
                    Catch::Contains("sweep.json: not valid JSON"));
  std::ofstream(temp.path() / "bad/sweep.json") << "{\"summary\": {}}";
  CHECK_THROWS_WITH(read_sweep_document((temp.path() / "bad").string()),
                    Catch::Contains("not a sweep's JSON (no \"runs\" array of points)"));
}
