#pragma once
// How long a child process of tpusim may run. Every child has a limit, so that no command waits forever on
// one: a simulation in a fork()ed child (a sweep's point, the healthy pod's run beside a faulty one, an
// isolated collective, a benchmark or validation target) has kChildTimeLimitVariable's, gnuplot its own
// (workloads/report/gnuplot.hpp). A child past its limit is killed with what it started, and one line says
// which limit it passed and how to raise it.
#include <string>

namespace tpusim {

// The limit of every simulation child, in seconds: generous, since a pod of 10^5 cores may simulate for
// hours, but a child that hangs is still ended rather than waited on for ever.
inline constexpr const char* kChildTimeLimitVariable = "TPUSIM_CHILD_TIME_LIMIT_S";
inline constexpr double kDefaultChildTimeLimitS = 24 * 3600;
// The largest limit a setting may give: a week. Larger would be no limit at all in practice.
inline constexpr double kMaxTimeLimitS = 7 * 24 * 3600;

// The environment variable `variable` as a time limit: seconds (digits, optionally a fraction: "60",
// "0.5"), more than 0 and at most kMaxTimeLimitS; `default_s` when it is not set. Anything else, the empty
// string included, is an InputError naming the variable.
double time_limit_from_environment(const char* variable, double default_s);

// The limit of a simulation child: kChildTimeLimitVariable, or kDefaultChildTimeLimitS.
double child_time_limit_s();

// The one line for a child killed at its limit: "<what> did not finish within <seconds> s; killed it
// (<how_to_raise>)".
std::string time_limit_message(const std::string& what, double seconds, const std::string& how_to_raise);

// How to raise the limit of a simulation child, for time_limit_message.
std::string child_time_limit_hint();

}  // namespace tpusim
