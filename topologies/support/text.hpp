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

// How many leading characters of `text` form a plain decimal number: an optional sign, digits with an
// optional fraction ("4096", "-1.5", ".5"), and an optional exponent ("2.5e-6"); 0 if none. strtod also
// reads hex ("0x10"), "inf", "nan" and leading spaces, which a config's integers refuse: every number tpusim
// reads goes through this first, so that one spelling means the same everywhere.
std::size_t plain_decimal_length(const std::string& text);

// The value of `text`, a plain decimal number (plain_decimal_length covers it all) that is finite as a
// double. Throws InputError "'x' is not a number: expected a plain decimal such as 4096, 1.5 or 2.5e-6".
double parse_plain_number(const std::string& text);

// Why `name` cannot be a plain name, or "" when it can: letters, digits, '-', '_' and '.', not empty and not
// starting with '.'. Run, sweep and profile names are such names, as they become file names; `what` is the
// kind of name the message calls it ("run name").
std::string plain_name_problem(const std::string& name, const std::string& what);

// `text` as one line: line breaks, tabs and other control characters written as escapes (\n, \t,
// \x1b), so that an error quoting a user's value stays the one line scripts look for.
std::string one_line(const std::string& text);

}  // namespace tpusim
