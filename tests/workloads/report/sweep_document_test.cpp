// Reading a sweep's sweep.json back for its plots: each row's fields from their places, varied values, the
// kind of sweep from the format, and one clear InputError line for a folder that is not a sweep's or a
// sweep.json that is malformed in any of the ways tpusim plot must refuse.
#include "workloads/report/sweep_document.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>

#include "sweep_fixtures.hpp"
#include "tests/topologies/support/input_error_of.hpp"
#include "topologies/support/input_error.hpp"

using tpusim::test::TempFolder;
using tpusim::test_support::input_error_of;
using tpusim::workloads::read_sweep_document;

TEST_CASE("sweep document: a training sweep's rows, fields from their places and varied values") {
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

TEST_CASE("sweep document: a collective study is one by its format, its rows the study's fields") {
  const TempFolder temp;
  const auto document = read_sweep_document(temp.sweep_folder("a", tpusim::test::collective_sweep_fixture()));
  CHECK(document.collectives());
  REQUIRE(document.rows.size() == 48);
  const auto& row = document.rows[5];
  CHECK(row.label == "#5 allreduce ring-8 ring 1MiB");
  CHECK(row.text("op") == "allreduce");
  CHECK(row.text("algorithms") == "ring");
  CHECK(row.number({"bytes"}) == 1024 * 1024);
  CHECK(row.value_of("collective.bytes") == "1MiB");
  CHECK(row.error.empty());
}

TEST_CASE("sweep document: points of a collective study that did not run say why") {
  auto json = tpusim::test::collective_sweep_fixture();
  for (const auto& [point, status] :
       std::vector<std::pair<int, std::string>>{{1, "skipped"}, {2, "failed"}}) {
    auto& run = json["runs"][point];
    for (const char* figure :
         {"groups", "simulated_s", "prediction_s", "ratio_to_lower_bound", "algbw_Bps", "busbw_Bps"})
      run.erase(figure);
    run["status"] = status;
    run["bytes"] = run["values"][3]["value"];  // as the study wrote it, a size not yet resolved
    run[status == "skipped" ? "reason" : "error"] = "a reason";
  }
  const TempFolder temp;
  const auto document = read_sweep_document(temp.sweep_folder("b", json));
  CHECK(document.rows[1].error == "skipped: a reason");
  CHECK(document.rows[2].error == "a reason");
  CHECK(std::isnan(document.rows[2].number({"bytes"})));
  CHECK(document.rows[3].error.empty());
}

TEST_CASE("sweep document: figures tpusim could not compute are null, and read as missing") {
  auto json = tpusim::test::collective_sweep_fixture();
  json["runs"][0]["busbw_Bps"] = nullptr;
  const TempFolder temp;
  const auto document = read_sweep_document(temp.sweep_folder("n", json));
  CHECK_FALSE(document.rows[0].has("busbw_Bps"));
  CHECK(std::isnan(document.rows[0].number({"busbw_Bps"})));
}

TEST_CASE("sweep document: a malformed sweep.json is one line naming the file, the key and the problem") {
  const TempFolder temp;
  int n = 0;
  for (const auto& bad : tpusim::test::malformed_sweeps()) {
    INFO(bad.what);
    const std::string folder = (temp.path() / std::to_string(n++)).string();
    std::filesystem::create_directories(folder);
    std::ofstream(folder + "/sweep.json") << bad.text;
    const std::string message = input_error_of([&] { read_sweep_document(folder); });
    CHECK(message.find('\n') == std::string::npos);
    CHECK(message.find("json.exception") == std::string::npos);
    if (bad.message_is_prefix) {
      CHECK_THAT(message, Catch::StartsWith(folder + "/sweep.json" + bad.message));
      CHECK_THAT(message, Catch::Contains(": not valid JSON: "));
    } else {
      CHECK(message == folder + "/sweep.json" + bad.message);
    }
  }
}

TEST_CASE("sweep document: a parse error names its line and column") {
  const TempFolder temp;
  std::filesystem::create_directory(temp.path() / "p");
  std::ofstream(temp.path() / "p/sweep.json") << "{\n  \"runs\": [1,\n  2,,\n]}";
  CHECK(
      input_error_of([&] { read_sweep_document((temp.path() / "p").string()); }) ==
      (temp.path() / "p/sweep.json").string() +
          ":3:5: not valid JSON: syntax error while parsing value - unexpected ','; expected '[', '{', or a "
          "literal");
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
                    Catch::Contains("sweep.json:1:11: not valid JSON"));
  std::ofstream(temp.path() / "bad/sweep.json") << "{\"summary\": {}}";
  CHECK_THROWS_WITH(read_sweep_document((temp.path() / "bad").string()), Catch::EndsWith("context: missing"));
}
