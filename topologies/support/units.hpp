#pragma once
// Parsing and printing of quantities with units: sizes ("64MiB", "1.5GB", "4096"), bandwidths ("496Gbps",
// "62GBps", "1e9" bytes/s), durations ("1us", "2.5ms", "1e-6") and FLOP rates ("22.5T"). Malformed text
// throws InputError naming the offending text and the accepted forms.
//
// The figures of a pod are also checked against a plausible range where they are parsed. The ranges are
// sanity limits, far wider than any real device, never tuning: they turn a typo such as 1e-300 or 1e300 into
// one clear error instead of simulated times that overflow later.
//   bandwidth (links, HBM)  1 kB/s .. 1 PB/s
//   latency (links)         0, or 1 ps .. 1 s
//   size (any)              0 .. 1 EiB
//   FLOP rate (per core)    1 MFLOP/s .. 1 EFLOP/s
//   memory size (HBM)       1 KiB .. 1 PiB (tests shrink HBM to a few KiB to make tiny models not fit)
#include <cstdint>
#include <string>

namespace tpusim {

struct PlausibleRange {
  double min;
  double max;
  const char* text;  // for messages: "1 kB/s to 1 PB/s"
};
inline constexpr PlausibleRange kBandwidthRange_Bps{1e3, 1e15, "1 kB/s to 1 PB/s"};
inline constexpr PlausibleRange kLatencyRange_s{0, 1, "0, or 1 ps to 1 s"};
inline constexpr double kSmallestLatency_s = 1e-12;
inline constexpr double kMaxSize_bytes = 1152921504606846976.0;  // 1 EiB: more than any pod holds
inline constexpr PlausibleRange kFlopRateRange_flops{1e6, 1e18, "1 MFLOP/s to 1 EFLOP/s"};
inline constexpr PlausibleRange kMemoryRange_bytes{1024.0, 1125899906842624.0, "1 KiB to 1 PiB"};

std::uint64_t parse_bytes(const std::string& text);         // a whole number of bytes, at most 1 EiB
std::uint64_t parse_memory_bytes(const std::string& text);  // a size in kMemoryRange_bytes
double parse_bandwidth_Bps(const std::string& text);        // in kBandwidthRange_Bps
double parse_duration_s(const std::string& text);           // any duration >= 0
double parse_latency_s(const std::string& text);            // 0, or kSmallestLatency_s to 1 s
double parse_flops(const std::string& text);  // "22.5T", "45e12", "22.5TFLOPS", in kFlopRateRange_flops

std::string format_bytes(double bytes);              // "64 MiB"
std::string format_bandwidth(double bandwidth_Bps);  // "62.0 GB/s"
std::string format_duration(double seconds);         // "1.234 ms"

}  // namespace tpusim
