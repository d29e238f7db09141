#include "topologies/support/text.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

#include "topologies/support/input_error.hpp"

using namespace tpusim;

TEST_CASE("whole numbers parse exactly, never cut to fewer bits") {
  CHECK(parse_whole_number("16", 1, 100) == 16);
  CHECK(parse_whole_number("-3", -5, 5) == -3);
  CHECK(parse_whole_number("4294967304", 1, std::numeric_limits<std::int64_t>::max()) == 4294967304);
  CHECK_THROWS_WITH(parse_whole_number("4294967304", 1, std::numeric_limits<int>::max()),
                    "4294967304 is out of range: expected 1 to 2147483647");
  CHECK_THROWS_WITH(parse_whole_number("99999999999999999999", 0, 10),
                    "99999999999999999999 is out of range: expected 0 to 10");
}

TEST_CASE("whole numbers refuse signs, spaces, suffixes and empty text") {
  for (const char* text : {"", "-", "+5", " 5", "5 ", "5x", "0x10", "1e3", "1.0"}) {
    INFO(text);
    CHECK_THROWS_WITH(parse_whole_number(text, -100, 100),
                      std::string("'") + text + "' is not a whole number");
  }
}
