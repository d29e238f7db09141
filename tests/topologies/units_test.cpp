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
