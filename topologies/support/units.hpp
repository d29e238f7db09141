#pragma once
// Parsing and printing of quantities with units: sizes ("64MiB", "1.5GB", "4096"), bandwidths ("496Gbps",
// "62GBps", "1e9" bytes/s) and durations ("1us", "2.5ms", "1e-6"). Malformed text throws InputError naming
// the offending text and the accepted forms.
#include <cstdint>
#include <string>

namespace tpusim {

std::uint64_t parse_bytes(const std::string& text);
double parse_bandwidth_Bps(const std::string& text);
double parse_duration_s(const std::string& text);
double parse_flops(const std::string& text);  // "22.5T", "45e12", "22.5TFLOPS"

std::string format_bytes(double bytes);              // "64 MiB"
std::string format_bandwidth(double bandwidth_Bps);  // "62.0 GB/s"
std::string format_duration(double seconds);         // "1.234 ms"

}  // namespace tpusim
