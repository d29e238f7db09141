#include "topologies/support/child_time_limit.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "topologies/support/input_error.hpp"

namespace tpusim {
namespace {

// Plain decimal seconds only: an exponent or a sign would let "1e9" or "-0" through as something else than
// what a reader of the setting sees.
bool plain_seconds(const std::string& text) {
  std::size_t i = 0, digits = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    std::size_t fraction = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i, ++fraction;
    if (fraction == 0) return false;
  }
  return digits > 0 && i == text.size();
}

}  // namespace

double time_limit_from_environment(const char* variable, double default_s) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return default_s;
  const std::string text = value;
  const double seconds = plain_seconds(text) ? std::strtod(text.c_str(), nullptr) : -1;
  if (!(seconds > 0 && seconds <= kMaxTimeLimitS)) {
    throw InputError(fmt::format(
        "{}: '{}' is not a time limit: expected a number of seconds more than 0 and at most {:g} (a week)",
        variable, text, kMaxTimeLimitS));
  }
  return seconds;
}

double child_time_limit_s() {
  return time_limit_from_environment(kChildTimeLimitVariable, kDefaultChildTimeLimitS);
}

std::string time_limit_message(const std::string& what, double seconds, const std::string& how_to_raise) {
  return fmt::format("{} did not finish within {:g} s; killed it ({})", what, seconds, how_to_raise);
}

std::string child_time_limit_hint() { return fmt::format("set {} to allow more", kChildTimeLimitVariable); }

}  // namespace tpusim
