#include "topologies/support/units.hpp"

#include <catch2/catch.hpp>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

using namespace tpusim;

TEST_CASE("parses sizes with binary and decimal units") {
  CHECK(parse_bytes("4096") == 4096);
  CHECK(parse_bytes("64MiB") == 64ull << 20);
  CHECK(parse_bytes("1GiB") == 1ull << 30);
  CHECK(parse_bytes("1.5GB") == 1500000000ull);
  CHECK(parse_bytes("1KiB") == 1024);
}

TEST_CASE("rejects malformed sizes naming the text and the accepted forms") {
  CHECK_THROWS_WITH(
      parse_bytes("64MiX"),
      "'64MiX' is not a size: unknown unit 'MiX', expected a size such as 4096, 64KiB, 64MiB, 1GiB or 1.5GB");
  CHECK_THROWS_WITH(parse_bytes("abc"),
                    "'abc' is not a size: expected a size such as 4096, 64KiB, 64MiB, 1GiB or 1.5GB");
  CHECK_THROWS_AS(parse_bytes("-4"), InputError);
  CHECK_THROWS_AS(parse_bytes("1.5"), InputError);
}

TEST_CASE("parses bandwidths in bytes and bits per second") {
  CHECK(parse_bandwidth_Bps("62GBps") == Approx(62e9));
  CHECK(parse_bandwidth_Bps("496Gbps") == Approx(62e9));
  CHECK(parse_bandwidth_Bps("1e9") == Approx(1e9));
  CHECK_THROWS_WITH(parse_bandwidth_Bps("0GBps"), "'0GBps' is not a bandwidth: it must be positive");
  CHECK_THROWS_WITH(parse_bandwidth_Bps("-5GBps"), "'-5GBps' is not a bandwidth: it is negative");
}

TEST_CASE("parses durations and FLOP rates") {
  CHECK(parse_duration_s("1us") == Approx(1e-6));
  CHECK(parse_duration_s("2.5ms") == Approx(2.5e-3));
  CHECK(parse_duration_s("0") == 0);
  CHECK(parse_flops("22.5TFLOPS") == Approx(22.5e12));
  CHECK(parse_flops("45e12") == Approx(45e12));
  CHECK_THROWS_AS(parse_duration_s("1 fortnight"), InputError);
}

TEST_CASE("suggests the nearest name for a misspelling") {
  CHECK(did_you_mean("bucket2", {"ring", "bidir_ring", "bucket2d"}) == " (did you mean 'bucket2d'?)");
  CHECK(did_you_mean("zzzzzz", {"ring", "bucket2d"}).empty());
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("formats quantities with a readable unit") {
  CHECK(format_bandwidth(62e9) == "62 GB/s");
  CHECK(format_bandwidth(3.968e12) == "3.97 TB/s");
  CHECK(format_bandwidth(1.28e8) == "128 MB/s");
  CHECK(format_bytes(64.0 * 1048576) == "64 MiB");
  // Just under a unit, rounded to three digits: the next unit, never "1.02e+03 MiB".
  CHECK(format_bytes(1023.7 * 1048576) == "1 GiB");
  CHECK(format_bytes(1023.4 * 1048576) == "1023 MiB");
  CHECK(format_bytes(999.6 * 1024) == "1000 KiB");
  CHECK(format_bytes(999.4 * 1024) == "999 KiB");
  CHECK(format_bandwidth(999.7e9) == "1 TB/s");
  CHECK(format_bandwidth(999.7e6) == "1 GB/s");
  CHECK(format_duration(1.204e-3) == "1.204 ms");
  CHECK(format_duration(2.5) == "2.5 s");
}

TEST_CASE("splits text keeping empty parts") {
  CHECK(split("a,,b", ',') == std::vector<std::string>{"a", "", "b"});
  CHECK(split("core+x", '+') == std::vector<std::string>{"core", "x"});
  CHECK(split("x,", ',') == std::vector<std::string>{"x", ""});
  CHECK(split("", ',') == std::vector<std::string>{""});
  CHECK(join({"a", "b"}) == "a, b");
}

TEST_CASE("the figures of a pod must be plausible, naming the range") {
  CHECK_THROWS_WITH(parse_bandwidth_Bps("1e-300"),
                    "'1e-300' is not a plausible bandwidth: expected 1 kB/s to 1 PB/s");
  CHECK_THROWS_WITH(parse_bandwidth_Bps("2PBps"),
                    "'2PBps' is not a bandwidth: unknown unit 'PBps', expected "
                    "a bandwidth such as 62GBps (bytes/s), 496Gbps (bits/s) or "
                    "1e9 (bytes/s)");
  CHECK_THROWS_WITH(parse_bandwidth_Bps("2e15"),
                    "'2e15' is not a plausible bandwidth: expected 1 kB/s to 1 PB/s");
  CHECK(parse_bandwidth_Bps("1000") == 1000);
  CHECK(parse_bandwidth_Bps("1e15") == 1e15);
  CHECK_THROWS_WITH(parse_latency_s("1e300"), "'1e300' is not a plausible latency: expected 0, or 1 ps to 1 s");
  CHECK_THROWS_WITH(parse_latency_s("2s"), "'2s' is not a plausible latency: expected 0, or 1 ps to 1 s");
  CHECK(parse_latency_s("0") == 0);
  CHECK(parse_latency_s("1s") == 1);
  CHECK(parse_latency_s("1ps") == 1e-12);
  CHECK_THROWS_WITH(parse_latency_s("1e-300"), "'1e-300' is not a plausible latency: expected 0, or 1 ps to 1 s");
  CHECK_THROWS_WITH(parse_latency_s("0.5ps"), "'0.5ps' is not a plausible latency: expected 0, or 1 ps to 1 s");
  CHECK_THROWS_WITH(parse_bytes("0x10"), "'0x10' is not a size: numbers are plain decimals, not hex");
  CHECK_THROWS_WITH(parse_bandwidth_Bps("-0X1p40"), "'-0X1p40' is not a bandwidth: numbers are plain decimals, not hex");
  CHECK_THROWS_WITH(parse_bytes("inf"), Catch::StartsWith("'inf' is not a size: expected a size such as"));
  CHECK_THROWS_WITH(parse_bytes("1e400"), "'1e400' is not a size: the number is larger than a double holds");
  CHECK(parse_bytes("1073741824GiB") == 1ull << 60);  // 1 EiB, the largest
  CHECK_THROWS_WITH(parse_bytes("1.8e19"), "'1.8e19' is not a plausible size: expected at most 1 EiB");
  CHECK_THROWS_WITH(parse_bytes("1.5"), "'1.5' is not a size: it is not a whole number of bytes");
  CHECK(parse_duration_s("2s") == 2);  // durations in general are not latencies
  CHECK_THROWS_WITH(parse_flops("1e-300"),
                    "'1e-300' is not a plausible FLOP rate: expected 1 MFLOP/s to 1 EFLOP/s");
  CHECK_THROWS_AS(parse_flops("2e18"), InputError);
  CHECK(parse_flops("1e6") == 1e6);
  CHECK_THROWS_WITH(parse_memory_bytes("512"),
                    "'512' is not a plausible memory size: expected 1 KiB to 1 PiB");
  CHECK_THROWS_AS(parse_memory_bytes("2048TiB"), InputError);
  CHECK(parse_memory_bytes("1KiB") == 1024);
  CHECK(parse_memory_bytes("8GiB") == 8ull << 30);
}
