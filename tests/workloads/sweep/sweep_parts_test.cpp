// The parts of running a study: --shard K/N, the progress line, record file names, and sweep.json written
// run by run exactly as dumping the whole document writes it.
#include <catch2/catch.hpp>
#include <sstream>

#include "topologies/support/input_error.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/sweep/content_hash.hpp"
#include "workloads/report/progress.hpp"
#include "workloads/sweep/sweep_record.hpp"
#include "workloads/sweep/sweep_shard.hpp"
#include "workloads/sweep/sweep_summary.hpp"

using namespace tpusim::workloads;

namespace {

std::string shard_error(const std::string& text) {
  try {
    parse_shard(text);
  } catch (const tpusim::InputError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("shard: K/N with 1 <= K <= N, and the points it runs") {
  const auto shard = parse_shard("2/3");
  CHECK(shard.k == 2);
  CHECK(shard.n == 3);
  CHECK(shard.text() == "2/3");
  CHECK(shard.has(1));
  CHECK(shard.has(4));
  CHECK_FALSE(shard.has(0));
  CHECK(parse_shard("1/1").whole());
  CHECK(shard_error("3/2") ==
        "--shard 3/2: K must be 1 to 2 (shards are numbered from 1, as Slurm's SLURM_ARRAY_TASK_ID with "
        "--array=1-2)");
  CHECK(shard_error("0/2") ==
        "--shard 0/2: K must be 1 to 2 (shards are numbered from 1, as Slurm's SLURM_ARRAY_TASK_ID with "
        "--array=1-2)");
  CHECK(shard_error("1/0") == "--shard 1/0: N must be 1 to 1000000");
  CHECK(shard_error("2") ==
        "--shard: '2' is not K/N: give the shard's number K (1 to N) and the number of shards N, e.g. 2/4");
  CHECK(shard_error("-1/2") == shard_error("-1/2"));
  CHECK_THAT(shard_error("-1/2"), Catch::StartsWith("--shard: '-1/2' is not K/N"));
}

TEST_CASE("progress: the figures, a bar that fits its width, and the modes") {
  Progress bar(ProgressMode::bar, "s", 10, 4, {}, std::tmpfile());
  bar.one_done(false);
  bar.one_done(true);
  // A wide terminal: the bar at its widest, 40 columns, 6/10 of them filled.
  const std::string line = bar.line(200);
  CHECK(line == "s [" + std::string(24, '#') + std::string(16, '-') +
                    "]   6/10 done  1 failed  0:00 elapsed  ETA 0:00");
  CHECK(bar.line(40).size() == 39);
  Progress plain(ProgressMode::plain, "s", 3, 0, {}, std::tmpfile());
  CHECK(plain.line(80) == "s: 0/3 done  0 failed  0:00 elapsed  ETA --");
  Progress wide(ProgressMode::plain, "s", 100, 7, {}, std::tmpfile());
  CHECK(wide.line(80) == "s:   7/100 done  0 failed  0:00 elapsed  ETA --");
  CHECK(format_clock(3725) == "1:02:05");
  CHECK(format_clock(61) == "1:01");
  CHECK(parse_progress_mode("plain") == ProgressMode::plain);
  CHECK(parse_progress_mode("none") == ProgressMode::none);
  CHECK_THROWS_WITH(
      parse_progress_mode("fancy"),
      "--progress: 'fancy' is not a progress mode; valid modes are bar (a line redrawn in place), "
      "plain (lines, for logs) and none");
}

TEST_CASE("records: file names, and hashes that depend on every part") {
  CHECK(record_file_name(12, "00112233aabbccdd") == "12-00112233aabbccdd.json");
  const auto parsed = parse_record_file_name("12-00112233aabbccdd.json");
  REQUIRE(parsed);
  CHECK(parsed->point == 12);
  CHECK(parsed->hash == "00112233aabbccdd");
  for (const char* other : {"manifest.json", "12-00112233aabbccdd.json.tmp.77", "12-00112233AABBCCDD.json",
                            "x-00112233aabbccdd.json", "12-0011.json"})
    CHECK_FALSE(parse_record_file_name(other));
  CHECK(ContentHash().add("ab").add("c").hex() != ContentHash().add("a").add("bc").hex());
  CHECK(ContentHash().add("x").hex() == ContentHash().add("x").hex());
  CHECK(ContentHash().add("x").hex().size() == 16);
}

TEST_CASE("summary: sweep.json written run by run is the document dumped whole") {
  const nlohmann::json runs = {{{"point", 0}, {"values", {{{"key", "a"}, {"value", "1"}}}}, {"x", 1.5}},
                               {{"point", 1}, {"nested", {{"deep", {1, 2}}}}, {"x", nullptr}}};
  const nlohmann::json sweep = {{"name", "s"}, {"vary", nlohmann::json::array()}};
  for (const auto& some : {runs, nlohmann::json::array()}) {
    std::ostringstream streamed;
    SweepJsonWriter writer(streamed, {{"sweep", sweep}}, "tpusim.sweep.v1", {{"sweep", "s.yaml"}});
    for (const auto& run : some) writer.add(run);
    writer.finish(2.5);
    const auto whole = with_report_context({{"sweep", sweep}, {"runs", some}, {"wall_s", 2.5}},
                                           "tpusim.sweep.v1", "sweep", {{"sweep", "s.yaml"}});
    CHECK(streamed.str() == dump_report(whole) + "\n");
  }
  std::ostringstream csv;
  CsvWriter writer(csv, {"a", "b", "c", "d", "e", "f"});
  write_csv_cells(writer, {"x,y", 3, 0.1, true, nullptr, std::uint64_t(1) << 63});
  CHECK(csv.str() == "a,b,c,d,e,f\n\"x,y\",3,0.1,true,,9223372036854775808\n");
}
