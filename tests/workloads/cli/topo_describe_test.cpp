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

TEST_CASE(
    "cli: topo describe --faults gives the faulty pod's figures, and a bad fault is one line, status 2") {
  const Scratch scratch;
  // torus-4x4 without the x links from column 0 to column 1 (hand computation as in chip_graph_test): 28
  // links, the weakest halving plane 4 links, the farthest chips 5 hops apart.
  const auto run = scratch.run(
      {"topo", "describe", "torus-4x4", "--faults", "down:0.0+x;down:0.1+x;down:0.2+x;down:0.3+x", "--json"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  const auto out = nlohmann::json::parse(run.out);
  CHECK(out["links"] == 28);
  CHECK(out["bisection_links"] == 4);
  CHECK(out["diameter_hops"] == 5);
  CHECK(out["faults"] == "down:0.0+x;down:0.1+x;down:0.2+x;down:0.3+x");
  const auto bad = scratch.run({"topo", "describe", "torus-4x4", "--faults", "down:9.9+x"});
  CHECK(bad.exit_status == 2);
  CHECK(bad.out.empty());
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  CHECK_THAT(bad.err, Catch::Contains("down:9.9+x"));
}
