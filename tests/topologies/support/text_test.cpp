#include "topologies/support/text.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <random>
#include <regex>
#include <string>
#include <vector>

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

TEST_CASE("plain decimal numbers: sign, digits, fraction and exponent, nothing strtod adds") {
  CHECK(parse_plain_number("4096") == 4096);
  CHECK(parse_plain_number("-1.5") == -1.5);
  CHECK(parse_plain_number("+.5") == 0.5);
  CHECK(parse_plain_number("2.5e-6") == 2.5e-6);
  CHECK(parse_plain_number("1E3") == 1000);
  CHECK(parse_plain_number("4.9e-324") > 0);  // in range of a double: the callers' ranges judge it
  for (const char* text : {"", ".", "-", "e5", "0x10", "0x1p-2", "inf", "-infinity", "nan", " 5", "5 ", "1e",
                           "1e+", "5x", "1.2.3", "--1"}) {
    INFO(text);
    CHECK_THROWS_WITH(parse_plain_number(text),
                      Catch::StartsWith(std::string("'") + text + "' is not a number"));
  }
  CHECK_THROWS_WITH(parse_plain_number("1e400"), "'1e400' is too large a number: more than a double holds");
  // The prefix a unit may follow.
  CHECK(plain_decimal_length("64MiB") == 2);
  CHECK(plain_decimal_length("1.5e3GB") == 5);
  CHECK(plain_decimal_length("5eV") == 1);
  CHECK(plain_decimal_length("0x10") == 1);
  CHECK(plain_decimal_length("inf") == 0);
}

TEST_CASE("plain_decimal_length agrees with a regular expression of the grammar on random text") {
  // The reference: the grammar written as a regex, matched against random strings over the characters that
  // matter, as the longest prefix that is a plain decimal.
  const std::regex decimal("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?");
  const std::string alphabet = "0123456789.+-eExa ";
  std::mt19937 random(28);
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int length = std::uniform_int_distribution<int>(0, 8)(random);
    for (int i = 0; i < length; ++i)
      text += alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(random)];
    std::size_t expected = 0;
    for (std::size_t n = 1; n <= text.size(); ++n) {
      if (std::regex_match(text.substr(0, n), decimal)) expected = n;
    }
    INFO('"' << text << '"');
    REQUIRE(plain_decimal_length(text) == expected);
  }
}

TEST_CASE("one_line escapes every control character and keeps everything else, on random bytes") {
  CHECK(one_line("a\nb\r\tc\x1b\x7f") == "a\\nb\\r\\tc\\x1b\\x7f");
  CHECK(one_line(std::string("nul\0end", 7)) == "nul\\x00end");
  CHECK(one_line("caf\xc3\xa9 'x'") == "caf\xc3\xa9 'x'");  // UTF-8 and quotes pass as they are
  // The reference: a byte-by-byte table written out here, against random strings of all 256 bytes.
  std::mt19937 random(49);
  for (int round = 0; round < 2000; ++round) {
    std::string text, expected;
    const int length = std::uniform_int_distribution<int>(0, 16)(random);
    for (int i = 0; i < length; ++i) {
      const int byte = std::uniform_int_distribution<int>(0, 255)(random);
      text += static_cast<char>(byte);
      static const char* hex = "0123456789abcdef";
      if (byte == '\n')
        expected += "\\n";
      else if (byte == '\r')
        expected += "\\r";
      else if (byte == '\t')
        expected += "\\t";
      else if (byte < 32 || byte == 127)
        expected += std::string("\\x") + hex[byte / 16] + hex[byte % 16];
      else
        expected += static_cast<char>(byte);
    }
    REQUIRE(one_line(text) == expected);
    REQUIRE(one_line(text).find('\n') == std::string::npos);
  }
}

TEST_CASE("plain_name_problem accepts letters, digits, '-', '_' and '.' only, not empty or hidden") {
  for (const char* name : {"lm-s5", "tpu-v3-core_tensorflow-1.14", "a", "A.b_c-9"})
    CHECK(plain_name_problem(name, "run name").empty());
  CHECK(plain_name_problem("", "profile name") == "a profile name must not be empty or start with '.'");
  CHECK(plain_name_problem("..", "run name") == "a run name must not be empty or start with '.'");
  // The name quoted on one line, a NUL in it shown rather than ending the message.
  CHECK(plain_name_problem(std::string("a\0b\n", 4), "run name") ==
        "'a\\x00b\\n' is not a run name: use letters, digits, '-', '_' and '.'");
  for (const std::string& name :
       std::vector<std::string>{"../x", "a/b", "/root", "a b", std::string("a\0b", 3), "caf\xc3\xa9"}) {
    CHECK_THAT(plain_name_problem(name, "run name"),
               Catch::EndsWith("is not a run name: use letters, digits, '-', '_' and '.'"));
  }
}
