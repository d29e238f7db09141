// Bad input on the command line: exit status 2, one line "tpusim: error: ..." on stderr naming the problem,
// nothing on stdout and no file written (the collective runs ask for a --trace file they must not leave).
#include <catch2/catch.hpp>

#include "cli_runner.hpp"

using tpusim::cli_test::joined;
using tpusim::cli_test::listed_algorithms;
using tpusim::cli_test::Scratch;

namespace {

void require_bad_input(const std::vector<std::string>& args, const std::vector<std::string>& phrases) {
  const Scratch scratch;
  const auto run = scratch.run(args);
  std::string command;
  for (const auto& word : args) command += " " + word;
  INFO("tpusim" << command << "\n" << run.describe());
  CHECK(run.exit_status == 2);
  CHECK(run.out.empty());
  const auto lines = run.err_lines();
  REQUIRE(lines.size() == 1);
  CHECK(run.err.back() == '\n');
  CHECK_THAT(lines.front(), Catch::StartsWith("tpusim: error: "));
  for (const auto& phrase : phrases) CHECK_THAT(lines.front(), Catch::Contains(phrase));
  CHECK(scratch.entries().empty());
}

std::vector<std::string> collective(std::vector<std::string> args) {
  args.insert(args.begin(), "collective");
  args.insert(args.end(), {"--trace", "trace.json"});
  return args;
}

}  // namespace

TEST_CASE("cli: bad input: an unknown preset suggests the nearest name and lists the valid ones") {
  require_bad_input(collective({"--topology", "tpu-v2-pd"}),
                    {"unknown topology preset 'tpu-v2-pd'", "(did you mean 'tpu-v2-pod'?)",
                     "valid presets are tpu-v2-pod, tpu-v3-pod"});
  require_bad_input({"topo", "describe", "torus-8x9"},
                    {"unknown topology preset 'torus-8x9'", "(did you mean 'torus-8x8'?)"});
}

TEST_CASE("cli: bad input: a malformed size names the text and the accepted forms") {
  require_bad_input(collective({"--topology", "torus-8x8", "--bytes", "64MiX"}),
                    {"'64MiX' is not a size", "64MiB"});
}

TEST_CASE("cli: bad input: a size that is not whole fp32 elements") {
  require_bad_input(collective({"--topology", "ring-8", "--bytes", "1022"}),
                    {"'1022'", "not a whole number of 4-byte fp32 elements"});
}

TEST_CASE("cli: bad input: zero and negative bandwidth in a topology spec") {
  require_bad_input(collective({"--topology", "torus:8x8,bw=0"}),
                    {"topology 'torus:8x8,bw=0'", "bw", "must be positive"});
  require_bad_input(collective({"--topology", "torus:8x8,bw=0GBps"}),
                    {"topology 'torus:8x8,bw=0GBps'", "must be positive"});
  require_bad_input(collective({"--topology", "torus:8x8,bw=-5GBps"}),
                    {"topology 'torus:8x8,bw=-5GBps'", "bw", "negative"});
  require_bad_input({"topo", "describe", "ring:8,intra_bw=-1"}, {"intra_bw", "negative"});
}

TEST_CASE("cli: bad input: an unknown key in a topology spec lists the valid keys") {
  require_bad_input(collective({"--topology", "torus:8x8,bandwidth=1GBps"}),
                    {"unknown key 'bandwidth'", "keys are cores, bw, lat, intra_bw, intra_lat"});
  require_bad_input(collective({"--topology", "torus:8x8,cores=2x"}), {"cores", "'2x'"});
}

TEST_CASE("cli: bad input: a group axis the topology does not have") {
  require_bad_input(collective({"--topology", "torus-8x8", "--group-axes", "x,z"}),
                    {"unknown axis 'z' for topology 'torus-8x8'", "valid axes are core, x, y"});
}

TEST_CASE("cli: bad input: bucket2d on a ring needs two group dimensions") {
  require_bad_input(collective({"--topology", "ring-8", "--algo", "bucket2d"}),
                    {"bucket2d needs a group with two dimensions"});
}

TEST_CASE("cli: bad input: an unknown algorithm lists the valid ones") {
  require_bad_input(
      collective({"--topology", "torus-8x8", "--algo", "tree"}),
      {"unknown allreduce algorithm 'tree'",
       "valid allreduce algorithms are " + joined(listed_algorithms("allreduce"))});
  require_bad_input(collective({"--topology", "torus-8x8", "--op", "allsum"}), {"'allsum'", "allreduce"});
}

TEST_CASE("cli: bad input: --check-data larger than the memory limit is refused before simulating") {
  require_bad_input(collective({"--topology", "tpu-v3-pod", "--bytes", "1GiB", "--check-data"}),
                    {"--check-data would need", "use a smaller --bytes"});
}

TEST_CASE("cli: bad input: an unknown flag") {
  require_bad_input(collective({"--topology", "ring-8", "--frobnicate"}),
                    {"argument was not expected: --frobnicate", "(see 'tpusim collective --help')"});
  // validate parses its flags before simulating: no results/validate/validate.csv.
  require_bad_input({"validate", "--frobnicate"}, {"--frobnicate"});
}

TEST_CASE("cli: bad input: a missing or unknown subcommand lists the valid ones") {
  require_bad_input(
      {}, {"'tpusim' needs a subcommand: topo, collective, validate, bench, run", "(see 'tpusim --help')"});
  require_bad_input({"topo"},
                    {"'tpusim topo' needs a subcommand: list, describe", "(see 'tpusim topo --help')"});
  require_bad_input({"bench"}, {"'tpusim bench' needs a subcommand: collectives, engine, conv, step"});
  require_bad_input({"simulate"},
                    {"unknown subcommand 'simulate' of 'tpusim'", "valid subcommands are topo"});
  require_bad_input({"topo", "descrbe", "ring-8"},
                    {"unknown subcommand 'descrbe' of 'tpusim topo' (did you mean 'describe'?)"});
}

TEST_CASE("cli: bad input: a missing required argument") {
  require_bad_input({"topo", "describe"}, {"topology is required", "(see 'tpusim topo describe --help')"});
}
