// tpusim collective: the simulated 2D bucket allreduce equals its closed form (sim/README.md, Closed forms),
// and --check-data moves real data correctly for several algorithms and group axes.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"
#include "topologies/presets.hpp"

using tpusim::cli_test::Scratch;

namespace {

// sim/README.md, Closed forms: 2D torus bucket allreduce (X then Y, bidirectional rings):
//   2(kx-1)a + (kx-1)/kx S/B + 2(ky-1)a + (ky-1)/ky (S/kx)/B
double bucket2d_allreduce_s(int kx, int ky, double bytes, double bandwidth_Bps, double latency_s) {
  return 2 * (kx - 1) * latency_s + (kx - 1.0) / kx * bytes / bandwidth_Bps + 2 * (ky - 1) * latency_s +
         (ky - 1.0) / ky * (bytes / kx) / bandwidth_Bps;
}

}  // namespace

TEST_CASE("cli: collective --json: the bucket2d allreduce on torus-8x8 takes its closed-form time") {
  const auto topology = tpusim::topo::preset("torus-8x8");
  const double bandwidth_Bps = topology.inter_chip().bandwidth_Bps();
  const double latency_s = topology.inter_chip().latency_s();
  REQUIRE(bandwidth_Bps == 62e9);
  REQUIRE(latency_s == 1e-6);
  REQUIRE(topology.cores_per_chip() == 1);

  const Scratch scratch;
  const auto run = scratch.run({"collective", "--topology", "torus-8x8", "--op", "allreduce", "--algo",
                                "bucket2d", "--bytes", "64MiB", "--json"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(run.err.empty());
  const auto result = nlohmann::json::parse(run.out);
  const double bytes = 64.0 * 1024 * 1024;
  CHECK(result.at("bytes") == 64 * 1024 * 1024);
  CHECK(result.at("group_size") == 64);
  CHECK(result.at("group_axes") == "x,y");
  CHECK(result.at("algorithms") == nlohmann::json({"bucket2d"}));

  const double expected_s = bucket2d_allreduce_s(8, 8, bytes, bandwidth_Bps, latency_s);
  const double time_s = result.at("simulated_s");
  CHECK(time_s == Approx(expected_s).epsilon(1e-6));
  CHECK(result.at("prediction_s").get<double>() == Approx(expected_s).epsilon(1e-6));
  CHECK(result.at("ratio_to_prediction").get<double>() == Approx(1.0).epsilon(1e-6));
  CHECK(result.at("contention_free") == true);
  CHECK(result.at("simulated_s").get<double>() >= result.at("lower_bound_s").get<double>());

  // nccl-tests convention: algbw = S/t, busbw = algbw * 2(p-1)/p, and a core cannot inject more than its
  // links carry: two directions on each of the two torus dimensions.
  const double algbw_Bps = result.at("algbw_Bps");
  const double busbw_Bps = result.at("busbw_Bps");
  CHECK(algbw_Bps == Approx(bytes / time_s).epsilon(1e-9));
  CHECK(busbw_Bps == Approx(algbw_Bps * 2 * 63 / 64).epsilon(1e-9));
  const double injection_Bps = 2 * 2 * bandwidth_Bps;
  CHECK(busbw_Bps <= injection_Bps);
  CHECK(scratch.entries().empty());
}

TEST_CASE("cli: collective --check-data: real data arrives intact for several algorithms and group axes") {
  struct Case {
    std::vector<std::string> args;
    const char* group_axes;
    int group_size;
  };
  const std::vector<Case> cases = {
      {{"--topology", "torus-4x4", "--op", "allreduce", "--algo", "bucket2d"}, "x,y", 16},
      {{"--topology", "torus-4x4", "--op", "allreduce", "--algo", "ring,bidir_ring", "--group-axes", "x,y"},
       "x,y",
       16},
      {{"--topology", "tpu-v2-32", "--op", "reduce_scatter", "--algo", "ring", "--group-axes", "core+x"},
       "core+x",
       8},
      {{"--topology", "tpu-v2-32", "--op", "allgather", "--group-axes", "y"}, "y", 4},
      {{"--topology", "torus-4x4x4", "--op", "allreduce", "--algo", "bucket2d", "--group-axes", "x,y+z"},
       "x,y+z",
       64},
      {{"--topology", "ring-8", "--op", "allreduce", "--algo", "halving_doubling", "--reduce", "max"},
       "x",
       8},
      {{"--topology", "torus-4x4", "--op", "alltoall", "--algo", "pairwise"}, "x+y", 16},
      {{"--topology", "ring-8", "--op", "broadcast", "--algo", "pipeline"}, "x", 8},
  };
  const Scratch scratch;
  for (const auto& c : cases) {
    std::vector<std::string> args = {"collective", "--bytes", "64KiB", "--check-data", "--json"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto run = scratch.run(args);
    std::string command;
    for (const auto& word : args) command += word + " ";
    INFO("tpusim " << command << "\n" << run.describe());
    REQUIRE(run.exit_status == 0);
    CHECK(run.err.empty());
    const auto result = nlohmann::json::parse(run.out);
    CHECK(result.at("group_axes") == c.group_axes);
    CHECK(result.at("group_size") == c.group_size);
    CHECK(result.at("data_ok") == true);
    CHECK(result.at("data_max_abs_error").get<double>() <= result.at("data_tolerance").get<double>());
  }
}

TEST_CASE(
    "cli: collective --check-data: halving_doubling allgather and reduce-scatter, flat and per dimension") {
  const std::vector<std::vector<std::string>> cases = {
      {"--topology", "torus-4x4", "--op", "allgather", "--algo", "halving_doubling"},
      {"--topology", "torus-4x4", "--op", "reduce_scatter", "--algo", "halving_doubling"},
      {"--topology", "torus-4x4", "--op", "allgather", "--algo", "halving_doubling,halving_doubling",
       "--group-axes", "x,y"},
      {"--topology", "torus-4x4", "--op", "reduce_scatter", "--algo", "ring,halving_doubling", "--group-axes",
       "x,y"},
      {"--topology", "torus:6x3", "--op", "allgather", "--algo", "halving_doubling,halving_doubling",
       "--group-axes", "x,y"},
      {"--topology", "tpu-v2-32", "--op", "reduce_scatter", "--algo", "halving_doubling", "--group-axes",
       "core+x+y", "--reduce", "max"},
  };
  const Scratch scratch;
  for (const auto& c : cases) {
    std::vector<std::string> args = {"collective", "--bytes", "1MiB", "--check-data", "--json"};
    args.insert(args.end(), c.begin(), c.end());
    const auto run = scratch.run(args);
    std::string command;
    for (const auto& word : args) command += word + " ";
    INFO("tpusim " << command << "\n" << run.describe());
    REQUIRE(run.exit_status == 0);
    CHECK(run.err.empty());
    const auto result = nlohmann::json::parse(run.out);
    CHECK(result.at("data_ok") == true);
    CHECK(result.at("data_max_abs_error").get<double>() <= result.at("data_tolerance").get<double>());
    CHECK(result.at("simulated_s").get<double>() >= result.at("lower_bound_s").get<double>());
  }
}

TEST_CASE("cli: collective --check-data prints the data check in the text report") {
  const Scratch scratch;
  const auto run = scratch.run(
      {"collective", "--topology", "torus-4x4", "--algo", "bucket2d", "--bytes", "4KiB", "--check-data"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(run.err.empty());
  CHECK_THAT(run.out, Catch::Contains("collective       allreduce bucket2d on torus-4x4"));
  // 1 KiB fp32 elements on each of the 16 members.
  CHECK_THAT(run.out, Catch::Contains("over 16384 elements: ok\n"));
  CHECK_THAT(run.out, Catch::Contains("data check       max abs error "));
}

TEST_CASE("cli: collective --algo auto names its choice and moves real data with it") {
  const Scratch scratch;
  // Four bytes on the pod: latency decides, recursive doubling along core,x,y (README figure).
  auto run = scratch.run({"collective", "--topology", "tpu-v2-pod", "--algo", "auto", "--bytes", "4"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK_THAT(run.out,
             Catch::Contains("collective       allreduce recursive_doubling (chosen by auto) on tpu-v2-pod"));
  CHECK_THAT(run.out, Catch::Contains("along core,x,y (2x16x16)"));
  run = scratch.run({"collective", "--topology", "tpu-v2-32", "--algo", "auto", "--bytes", "1MiB",
                     "--group-axes", "core+x,y", "--check-data", "--json"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  const auto result = nlohmann::json::parse(run.out);
  CHECK(result.at("chosen_by_auto") == true);
  CHECK(result.at("group_axes") == "core+x,y");
  CHECK(result.at("algorithms").get<std::vector<std::string>>() != std::vector<std::string>{"auto"});
  CHECK(result.at("data_ok") == true);
}

TEST_CASE("cli: --faults: the faulty pod's time beside the healthy pod's, and bad faults are one line") {
  const Scratch scratch;
  auto run = scratch.run({"collective", "--topology", "tpu-v2-32", "--algo", "halving_doubling", "--bytes",
                          "64KiB", "--faults", "down:1.2+x;slow:0.0+y:0.5", "--check-data", "--json"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  const auto result = nlohmann::json::parse(run.out);
  CHECK(result.at("faults") == "down:1.2+x;slow:0.0+y:0.5");
  CHECK(result.at("data_ok") == true);
  const double healthy = result.at("healthy_simulated_s"), faulty = result.at("simulated_s");
  CHECK(healthy > 0);
  CHECK(result.at("slowdown").get<double>() == Approx(faulty / healthy).epsilon(1e-12));
  CHECK(faulty > healthy);
  // A ring through the dead link is refused; a fault naming no link is bad input.
  run = scratch.run(
      {"collective", "--topology", "tpu-v2-32", "--algo", "bidir_ring", "--faults", "down:1.2+x"});
  CHECK(run.exit_status == 2);
  REQUIRE(run.err_lines().size() == 1);
  CHECK_THAT(run.err_lines()[0], Catch::Contains("would cross link 1.2+x, which is down"));
  run = scratch.run({"collective", "--topology", "tpu-v2-32", "--faults", "down:4.0+x"});
  CHECK(run.exit_status == 2);
  REQUIRE(run.err_lines().size() == 1);
  CHECK(run.err_lines()[0] ==
        "tpusim: error: fault 'down:4.0+x': chip coordinate x: 4 is out of range: expected 0 to 3");
  // tpusim run takes --faults too, and reports the step on the healthy pod beside.
  run = scratch.run({"run", "--preset", "tiny-mlp", "--no-files", "--faults", "straggler:0:2"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK_THAT(run.out, Catch::Contains("  faults                straggler:0:2; on the healthy pod "));
}

TEST_CASE("cli: collective --trace writes a Chrome trace that parses as JSON") {
  const Scratch scratch;
  const auto run = scratch.run({"collective", "--topology", "ring-8", "--algo", "ring", "--bytes", "4KiB",
                                "--trace", "out/trace.json"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(run.err.empty());
  REQUIRE(scratch.entries() == std::vector<std::string>{"out/", "out/trace.json"});
  std::ifstream in(scratch.work() / "out" / "trace.json");
  const auto trace = nlohmann::json::parse(in);
  // One event per simulated transfer at least: a ring allreduce on 8 members has 2*7 rounds.
  REQUIRE(trace.contains("traceEvents"));
  CHECK(trace.at("traceEvents").size() >= 14);
}

TEST_CASE(
    "cli: collective --list-algorithms says of every row whether auto may choose it, as text and JSON") {
  const Scratch scratch;
  const auto json = scratch.run({"collective", "--list-algorithms", "--json"});
  const auto text = scratch.run({"collective", "--list-algorithms"});
  REQUIRE(json.exit_status == 0);
  REQUIRE(text.exit_status == 0);
  const auto rows = nlohmann::json::parse(json.out).at("algorithms");
  std::istringstream lines(text.out);
  std::string header;
  std::getline(lines, header);
  const auto auto_column = header.find(" auto ");
  REQUIRE(auto_column != std::string::npos);
  std::size_t chosen = 0;
  for (const auto& row : rows) {
    std::string line;
    REQUIRE(std::getline(lines, line));
    INFO(line);
    CHECK(line.rfind(row.at("collective").get<std::string>() + " ", 0) == 0);
    const bool may = row.at("auto_may_choose").get<bool>();
    CHECK(line.substr(auto_column + 1, 4) == (may ? "yes " : "no  "));
    chosen += may;
  }
  CHECK(chosen > 0);
  CHECK(!std::getline(lines, header));  // one line per row, no more
}
