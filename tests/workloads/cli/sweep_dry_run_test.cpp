// tpusim sweep --dry-run says, without simulating a step, what each point will do: run, fail (a layout the
// engine rejects), run but not fit its HBM, or nothing because an earlier run has its record; and what the
// sweep then does agrees with it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_files.hpp"
#include "cli_runner.hpp"

using namespace tpusim::cli_test;

namespace {

const std::string kBase =
    "name: small\n"
    "hardware: {topology: ring-8}\n"
    "mesh: {shape: \"batch:2;model:4\"}\n"
    "model: {kind: transformer_lm, layers: 1, d_model: 64, d_ff: 256, heads: 4, d_kv: 16, vocab: 256, batch: "
    "4,"
    " length: 16}\n"
    "training: {numerics: timing}\n";

// Point 0 runs; point 1 splits d_ff over the batch axis, which the engine rejects; point 2 has 64 KiB of
// HBM per core, less than the model's parameters alone (256 x 64 embedding values over 4 model cores, 4 bytes
// each, are 16 KiB; the other matrices are as large again several times).
const std::string kSweep =
    "name: dry\n"
    "base: small.yaml\n"
    "points:\n"
    "  - {mesh.layout: \"batch:batch\"}\n"
    "  - {mesh.layout: \"batch:batch;d_ff:batch\"}\n"
    "  - {hardware.hbm_per_core: 64KiB}\n";

std::string line_of(const std::string& text, const std::string& start) {
  const auto at = text.find(start);
  if (at == std::string::npos) return "";
  return text.substr(at, text.find('\n', at) - at);
}

}  // namespace

TEST_CASE("cli: sweep --dry-run names the points that will fail or not fit, and why") {
  const Scratch scratch;
  write_file(scratch.work() / "small.yaml", kBase);
  write_file(scratch.work() / "dry.yaml", kSweep);
  const auto dry = scratch.run({"sweep", "dry.yaml", "--dry-run"});
  INFO(dry.describe());
  REQUIRE(dry.exit_status == 0);
  CHECK_THAT(dry.out, !Catch::Contains("all valid"));
  CHECK_THAT(dry.out,
             Catch::Contains("sweep dry: 3 points of dry.yaml (base small.yaml): 1 run, 1 fail, 1 do not "
                             "fit their HBM\n"));
  CHECK_THAT(line_of(dry.out, "   0  "), !Catch::Contains("["));
  CHECK_THAT(
      line_of(dry.out, "   1  "),
      Catch::Contains("[fails: dry.yaml:5: points[1].mesh.layout: the model cannot be laid out on mesh "
                      "batch:2;model:4: "));
  const std::string no_fit = line_of(dry.out, "   2  ");
  CHECK_THAT(no_fit, Catch::Contains("[runs, but does not fit its HBM: "));
  CHECK_THAT(no_fit, Catch::EndsWith(" per core of 64 KiB]"));
  // Nothing simulated, nothing written.
  CHECK(scratch.entries() == std::vector<std::string>{"dry.yaml", "small.yaml"});

  // The sweep does what the dry run said: point 1 an error, point 2 a row that does not fit, with the
  // memory the dry run gave.
  const auto run = scratch.run({"sweep", "dry.yaml", "--progress", "none"});
  INFO(run.describe());
  CHECK(run.exit_status == 2);
  CHECK_THAT(line_of(run.out, "   1  "), Catch::Contains("error: "));
  const std::string row = line_of(run.out, "   2  ");
  CHECK_THAT(row, Catch::EndsWith("NO"));
  const std::string memory =
      no_fit.substr(no_fit.find("HBM: ") + 5, no_fit.find(" per core") - no_fit.find("HBM: ") - 5);
  CHECK_THAT(row, Catch::Contains(memory + " / 64 KiB"));

  // Again: every point has its record, so a run would repeat none.
  const auto again = scratch.run({"sweep", "dry.yaml", "--dry-run"});
  INFO(again.describe());
  CHECK_THAT(again.out, Catch::Contains(": 3 done earlier\n"));
  CHECK_THAT(line_of(again.out, "   0  "),
             Catch::Contains("[done earlier: its record is in results/dry/points/]"));
}

TEST_CASE("cli: sweep --dry-run of a collective study names the skipped points and why") {
  const Scratch scratch;
  write_file(scratch.work() / "c.yaml",
             "name: c\nkind: collectives\nvary:\n  collective.op: [allreduce]\n"
             "  collective.algorithm: [ring, bucket2d]\n  collective.bytes: [1MiB]\n"
             "  hardware.topology: [ring-8]\n");
  const auto dry = scratch.run({"sweep", "c.yaml", "--dry-run"});
  INFO(dry.describe());
  REQUIRE(dry.exit_status == 0);
  CHECK_THAT(dry.out, Catch::Contains("sweep c: 2 collective points of c.yaml: 1 run, 1 skipped\n"));
  CHECK_THAT(line_of(dry.out, "    1  "), Catch::Contains("[skipped: "));
  CHECK(scratch.entries() == std::vector<std::string>{"c.yaml"});
}
