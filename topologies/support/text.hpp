#pragma once
// The small text helpers every parser of specs ("core+x,y", "torus:4x4,bw=1e9", "batch:rows;hidden:cols")
// needs.
#include <cstdint>
#include <string>
#include <vector>

namespace tpusim {

// Every part, empty ones included: split("a,,b", ',') is {"a", "", "b"}; split("", ',') is {""}.
std::vector<std::string> split(const std::string& text, char separator);

// join({"a", "b", "c"}) is "a, b, c".
std::string join(const std::vector<std::string>& items, const std::string& separator = ", ");

// The value of `text`, a whole number from min to max: decimal digits with an optional leading '-', nothing
// else (no spaces, '+' or suffix). Throws InputError "'x' is not a whole number" or "N is out of range:
// expected min to max": a size is never cut to fewer bits or saturated, which would run something other
// than what was written.
std::int64_t parse_whole_number(const std::string& text, std::int64_t min, std::int64_t max);

}  // namespace tpusim
