#include "topologies/support/units.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <map>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

namespace tpusim {
namespace {

struct NumberAndSuffix {
  double value;
  std::string suffix;
};

NumberAndSuffix split_number(const std::string& text, const char* what, const char* accepted) {
  const std::size_t length = plain_decimal_length(text);
  const double value = length > 0 ? std::strtod(text.substr(0, length).c_str(), nullptr) : 0;
  if (length == 0) throw InputError(fmt::format("'{}' is not a {}: expected {}", text, what, accepted));
  const std::size_t digits_from = text[0] == '-' || text[0] == '+' ? 1 : 0;
  if (length == digits_from + 1 && text[digits_from] == '0' && (text[length] == 'x' || text[length] == 'X')) {
    throw InputError(fmt::format("'{}' is not a {}: numbers are plain decimals, not hex", text, what));
  }
  if (!std::isfinite(value)) {
    throw InputError(fmt::format("'{}' is not a {}: the number is larger than a double holds", text, what));
  }
  std::string suffix = text.substr(length);
  while (!suffix.empty() && suffix.front() == ' ') suffix.erase(suffix.begin());
  return {value, suffix};
}

double scaled(const std::string& text, const std::map<std::string, double>& multipliers, const char* what,
              const char* accepted) {
  const auto [value, suffix] = split_number(text, what, accepted);
  const auto found = multipliers.find(suffix);
  if (found == multipliers.end()) {
    throw InputError(
        fmt::format("'{}' is not a {}: unknown unit '{}', expected {}", text, what, suffix, accepted));
  }
  if (value < 0) throw InputError(fmt::format("'{}' is not a {}: it is negative", text, what));
  return value * found->second;
}

template <typename Value>
Value plausible(const std::string& text, Value value, const char* what, const PlausibleRange& range) {
  if (!(double(value) >= range.min && double(value) <= range.max)) {
    throw InputError(fmt::format("'{}' is not a plausible {}: expected {}", text, what, range.text));
  }
  return value;
}

}  // namespace

std::uint64_t parse_bytes(const std::string& text) {
  static const std::map<std::string, double> units = {{"", 1},
                                                      {"B", 1},
                                                      {"KiB", 1024.0},
                                                      {"MiB", 1048576.0},
                                                      {"GiB", 1073741824.0},
                                                      {"TiB", 1099511627776.0},
                                                      {"KB", 1e3},
                                                      {"MB", 1e6},
                                                      {"GB", 1e9},
                                                      {"TB", 1e12},
                                                      {"K", 1024.0},
                                                      {"M", 1048576.0},
                                                      {"G", 1073741824.0}};
  const char* accepted = "a size such as 4096, 64KiB, 64MiB, 1GiB or 1.5GB";
  const double bytes = scaled(text, units, "size", accepted);
  if (bytes > kMaxSize_bytes) {
    throw InputError(fmt::format("'{}' is not a plausible size: expected at most 1 EiB", text));
  }
  if (bytes != std::floor(bytes)) {
    throw InputError(fmt::format("'{}' is not a size: it is not a whole number of bytes", text));
  }
  return static_cast<std::uint64_t>(bytes);
}

std::uint64_t parse_memory_bytes(const std::string& text) {
  return plausible(text, parse_bytes(text), "memory size", kMemoryRange_bytes);
}

double parse_bandwidth_Bps(const std::string& text) {
  static const std::map<std::string, double> units = {
      {"", 1},           {"Bps", 1},         {"B/s", 1},         {"KBps", 1e3},          {"MBps", 1e6},
      {"GBps", 1e9},     {"TBps", 1e12},     {"KB/s", 1e3},      {"MB/s", 1e6},          {"GB/s", 1e9},
      {"TB/s", 1e12},    {"bps", 0.125},     {"Kbps", 125.0},    {"Mbps", 1.25e5},       {"Gbps", 1.25e8},
      {"Tbps", 1.25e11}, {"Gbit/s", 1.25e8}, {"Mbit/s", 1.25e5}, {"GiBps", 1073741824.0}};
  const double bandwidth = scaled(text, units, "bandwidth",
                                  "a bandwidth such as 62GBps (bytes/s), 496Gbps (bits/s) or 1e9 (bytes/s)");
  if (bandwidth <= 0) throw InputError(fmt::format("'{}' is not a bandwidth: it must be positive", text));
  return plausible(text, bandwidth, "bandwidth", kBandwidthRange_Bps);
}

double parse_duration_s(const std::string& text) {
  static const std::map<std::string, double> units = {{"", 1},      {"s", 1},     {"ms", 1e-3},
                                                      {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}};
  return scaled(text, units, "duration", "a duration such as 1us, 2.5ms, 100ns or 1e-6 (seconds)");
}

double parse_latency_s(const std::string& text) {
  const double latency_s = parse_duration_s(text);
  // Zero is an ideal link; a latency below a picosecond is a typo that only underflows later.
  if (latency_s > 0 && latency_s < kSmallestLatency_s) {
    throw InputError(fmt::format("'{}' is not a plausible latency: expected {}", text, kLatencyRange_s.text));
  }
  return plausible(text, latency_s, "latency", kLatencyRange_s);
}

double parse_flops(const std::string& text) {
  static const std::map<std::string, double> units = {{"", 1},           {"G", 1e9},       {"T", 1e12},
                                                      {"P", 1e15},       {"FLOPS", 1},     {"GFLOPS", 1e9},
                                                      {"TFLOPS", 1e12},  {"PFLOPS", 1e15}, {"GFLOP/s", 1e9},
                                                      {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}};
  const double flops = scaled(text, units, "FLOP rate", "a rate such as 22.5TFLOPS, 22.5T or 2.25e13");
  if (flops <= 0) throw InputError(fmt::format("'{}' is not a FLOP rate: it must be positive", text));
  return plausible(text, flops, "FLOP rate", kFlopRateRange_flops);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  // 1023.5 and up would print as "1.02e+03" at three significant digits: the next unit's "1" reads better.
  while (std::fabs(bytes) >= 1023.5 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  // From 999.5 to 1023.5 three significant digits would need an exponent: whole units instead.
  if (unit == 0 || std::fabs(bytes) >= 999.5) return fmt::format("{:.0f} {}", bytes, units[unit]);
  return fmt::format("{:.3g} {}", bytes, units[unit]);
}

std::string format_bandwidth(double bandwidth_Bps) {
  // Thresholds at what rounds to 1000 in three digits, so that no figure prints as "1e+03".
  if (bandwidth_Bps >= 999.5e9) return fmt::format("{:.3g} TB/s", bandwidth_Bps / 1e12);
  if (bandwidth_Bps >= 999.5e6) return fmt::format("{:.3g} GB/s", bandwidth_Bps / 1e9);
  return fmt::format("{:.3g} MB/s", bandwidth_Bps / 1e6);
}

std::string format_duration(double seconds) {
  if (seconds >= 1) return fmt::format("{:.4g} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.4g} ms", seconds * 1e3);
  if (seconds >= 1e-6) return fmt::format("{:.4g} us", seconds * 1e6);
  return fmt::format("{:.4g} ns", seconds * 1e9);
}

}  // namespace tpusim
