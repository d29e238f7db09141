// tpusim topo describe: the figures of the 512-core TPU v2 pod, as text and as JSON.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

TEST_CASE("cli: topo describe prints the figures of the TPU v2 pod") {
  const Scratch scratch;
  const auto run = scratch.run({"topo", "describe", "tpu-v2-pod"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(run.err.empty());
  // 16x16 chips x 2 cores; diameter 8+8 hops; cutting a 16x16 torus in half cuts 16 rows, twice (wraparound).
  CHECK_THAT(run.out, Catch::Contains("16x16 chips x 2 cores = 512 cores"));
  CHECK_THAT(run.out, Catch::Contains("diameter        16 hops"));
  CHECK_THAT(run.out, Catch::Contains("bisection       32 links"));
  CHECK_THAT(run.out, Catch::Contains("links           512 full-duplex inter-chip links"));
  CHECK(scratch.entries().empty());
}

TEST_CASE("cli: topo describe --json gives the same figures as one JSON object") {
  const Scratch scratch;
  const auto run = scratch.run({"topo", "describe", "tpu-v2-pod", "--json"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(run.err.empty());
  const auto figures = nlohmann::json::parse(run.out);
  CHECK(figures.at("topology") == "tpu-v2-pod");
  CHECK(figures.at("kind") == "torus");
  CHECK(figures.at("chip_dims") == nlohmann::json({16, 16}));
  CHECK(figures.at("cores_per_chip") == 2);
  CHECK(figures.at("cores") == 512);
  CHECK(figures.at("chips") == 256);
  CHECK(figures.at("links") == 512);
  CHECK(figures.at("diameter_hops") == 16);
  CHECK(figures.at("bisection_links") == 32);
  CHECK(figures.at("inter_chip_bandwidth_Bps").get<double>() == Approx(62e9));
  CHECK(figures.at("inter_chip_latency_s").get<double>() == Approx(1e-6));
  // Both directions of the 32 links crossing the cut.
  CHECK(figures.at("bisection_Bps").get<double>() == Approx(32 * 2 * 62e9));
}
