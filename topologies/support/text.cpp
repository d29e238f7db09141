#include "topologies/support/text.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "topologies/support/input_error.hpp"

namespace tpusim {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts{""};
  for (const char c : text) {
    if (c == separator) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string joined;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) joined += separator;
    joined += items[i];
  }
  return joined;
}

std::int64_t parse_whole_number(const std::string& text, std::int64_t min, std::int64_t max) {
  const std::size_t digits_from = !text.empty() && text[0] == '-' ? 1 : 0;
  bool digits = text.size() > digits_from;
  for (std::size_t i = digits_from; i < text.size(); ++i) digits = digits && text[i] >= '0' && text[i] <= '9';
  if (!digits) throw InputError(fmt::format("'{}' is not a whole number", text));
  errno = 0;
  const long long value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || value < min || value > max) {
    throw InputError(fmt::format("{} is out of range: expected {} to {}", text, min, max));
  }
  return value;
}

std::size_t plain_decimal_length(const std::string& text) {
  auto digits_from = [&](std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    return end;
  };
  std::size_t at = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const std::size_t whole_end = digits_from(at);
  std::size_t end = whole_end;
  bool any_digit = whole_end > at;
  if (end < text.size() && text[end] == '.') {
    const std::size_t fraction_end = digits_from(end + 1);
    any_digit = any_digit || fraction_end > end + 1;
    end = fraction_end;
  }
  if (!any_digit) return 0;
  if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
    std::size_t exponent = end + 1;
    if (exponent < text.size() && (text[exponent] == '-' || text[exponent] == '+')) ++exponent;
    const std::size_t exponent_end = digits_from(exponent);
    if (exponent_end > exponent) end = exponent_end;  // "5e" or "5eV": the number is "5"
  }
  return end;
}

double parse_plain_number(const std::string& text) {
  const std::size_t length = plain_decimal_length(text);
  const double value = length > 0 ? std::strtod(text.c_str(), nullptr) : 0;
  if (length > 0 && length == text.size() && !std::isfinite(value)) {
    throw InputError(fmt::format("'{}' is too large a number: more than a double holds", text));
  }
  if (length == 0 || length != text.size()) {
    throw InputError(
        fmt::format("'{}' is not a number: expected a plain decimal such as 4096, 1.5 or 2.5e-6", text));
  }
  return value;
}

std::string plain_name_problem(const std::string& name, const std::string& what) {
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return fmt::format("'{}' is not a {}: use letters, digits, '-', '_' and '.'", one_line(name), what);
  }
  if (name.empty() || name[0] == '.') return fmt::format("a {} must not be empty or start with '.'", what);
  return "";
}

std::string one_line(const std::string& text) {
  std::string line;
  line.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\r') {
      line += "\\r";
    } else if (c == '\t') {
      line += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      line += fmt::format("\\x{:02x}", byte);
    } else {
      line += c;
    }
  }
  return line;
}

}  // namespace tpusim
