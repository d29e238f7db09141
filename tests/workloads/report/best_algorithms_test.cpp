// report.md's "Best algorithms" of a collective study: one row per op, topology and size, whatever group
// axes each algorithm ran on, naming the fastest and its margin over the second fastest.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "sweep_fixtures.hpp"
#include "workloads/report/sweep_document.hpp"
#include "workloads/report/sweep_report_md.hpp"

using tpusim::workloads::sweep_document_from_json;
using tpusim::workloads::sweep_report_markdown;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The fixture with each algorithm on axes of its own, as real studies run them (bucket2d on "x,y", a ring
// on the snake order "x:snake,y").
std::string report_with_own_axes() {
  auto json = tpusim::test::collective_sweep_fixture();
  for (auto& run : json["runs"]) run["group_axes"] = run["algorithms"] == "ring" ? "x:snake,y" : "x,y";
  const auto document = sweep_document_from_json(json, "/tmp/fixture-collectives");
  return sweep_report_markdown(document, {}, false, {});
}

std::string best_section(const std::string& report) {
  const auto start = report.find("## Best algorithms");
  REQUIRE(start != std::string::npos);
  return report.substr(start, report.find("## Points") - start);
}

}  // namespace

TEST_CASE("best algorithms: algorithms on different group axes are compared in one row") {
  const std::string best = best_section(report_with_own_axes());
  // 2 ops x 2 topologies x 6 sizes: one row each, not one per algorithm.
  CHECK(count(best, "| allreduce | ring-8 |") == 6);
  CHECK(count(best, "| allgather | torus-8x8 |") == 6);
  CHECK(count(best, "\n| ") == 2 * 2 * 6 + 1);  // and the header
  CHECK(best.find("x:snake") == std::string::npos);
}

TEST_CASE("best algorithms: the fastest and its margin over the second, from the times by hand") {
  const std::string best = best_section(report_with_own_axes());
  // The fixture's times: ring 10 us + bytes / 10 GB/s, bidir_ring 20 us + bytes / 20 GB/s.
  auto ring_s = [](double bytes) { return 10e-6 + bytes / 1e10; };
  auto bidir_s = [](double bytes) { return 20e-6 + bytes / 2e10; };
  // 64 KiB: ring is faster; bidir_ring takes (20 + 3.2768) / (10 + 6.5536) as long.
  const double small = bidir_s(65536) / ring_s(65536);
  const std::string small_margin = fmt::format("{:.1f}% ({:.3f}x)", 100 * (small - 1), small);
  CHECK(small_margin == "40.6% (1.406x)");
  const auto small_row = best.substr(best.find("| allreduce | ring-8 | 64 KiB |"));
  CHECK(small_row.substr(0, small_row.find('\n')).find("| ring |") != std::string::npos);
  CHECK(small_row.substr(0, small_row.find('\n')).find("| bidir\\_ring | ") != std::string::npos);
  CHECK(small_row.substr(0, small_row.find('\n')).find(small_margin + " |") != std::string::npos);
  // 1 MiB: bidir_ring is faster by ring's time over its own.
  const double large = ring_s(1048576) / bidir_s(1048576);
  const std::string large_margin = fmt::format("{:.1f}% ({:.3f}x)", 100 * (large - 1), large);
  const auto large_row = best.substr(best.find("| allgather | torus-8x8 | 1 MiB |"));
  const auto line = large_row.substr(0, large_row.find('\n'));
  CHECK(line.find("| 1 MiB | bidir\\_ring |") != std::string::npos);
  CHECK(line.find("| ring | ") != std::string::npos);
  CHECK(line.find(large_margin + " |") != std::string::npos);
}

TEST_CASE("best algorithms: a size only one algorithm ran at says so") {
  auto json = tpusim::test::collective_sweep_fixture();
  for (auto& run : json["runs"]) {
    if (run["algorithms"] == "bidir_ring" && run["bytes"] == 1024) {
      run["status"] = "skipped";
      run["reason"] = "does not fit";
      run["bytes"] = "1KiB";
    }
  }
  const auto document = sweep_document_from_json(json, "/tmp/fixture-collectives");
  const std::string best = best_section(sweep_report_markdown(document, {}, false, {}));
  const auto row = best.substr(best.find("| allreduce | ring-8 | 1 KiB |"));
  CHECK(row.substr(0, row.find('\n')).find("| ring |") != std::string::npos);
  CHECK(row.substr(0, row.find('\n')).find("| only one ran |") != std::string::npos);
}
