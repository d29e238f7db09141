#pragma once
// Whole-number options with readable messages. CLI11's own validators print the limits of a double
// ("Value 0 not in range 0.000000 to 1797...", 300 digits); these name the accepted range, and why when the
// limit has a reason: "--steps: 1000000 is out of range: expected 1 to 100000 (the most steps a run may
// have)".
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <string>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::cli {

template <typename Integer>
CLI::Option* add_whole_number_option(CLI::App* command, const std::string& name, Integer& value,
                                     std::int64_t min, std::int64_t max, const std::string& help,
                                     const std::string& why_max = "") {
  auto check = [min, max, why_max](std::string& text) -> std::string {
    const std::string range =
        fmt::format("expected {} to {}{}", min, max, why_max.empty() ? "" : " (" + why_max + ")");
    try {
      parse_whole_number(text, min, max);
      return "";
    } catch (const InputError&) {
    }
    try {
      parse_whole_number(text, std::numeric_limits<std::int64_t>::min(),
                         std::numeric_limits<std::int64_t>::max());
    } catch (const InputError&) {
      const bool digits = text.find_first_not_of("-0123456789") == std::string::npos && !text.empty();
      if (!digits) return fmt::format("'{}' is not a whole number: {}", text, range);
    }
    return fmt::format("{} is out of range: {}", text, range);
  };
  return command->add_option(name, value, help)
      ->check(CLI::Validator(check, fmt::format("INT in {} to {}", min, max), ""));
}

}  // namespace tpusim::cli
