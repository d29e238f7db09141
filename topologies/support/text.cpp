#include "topologies/support/text.hpp"

#include <fmt/format.h>

#include <cerrno>
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

}  // namespace tpusim
