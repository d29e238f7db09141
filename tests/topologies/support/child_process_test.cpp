#include "topologies/support/child_process.hpp"

#include <catch2/catch.hpp>
#include <csignal>
#include <stdexcept>

#include "topologies/support/environment_error.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;

TEST_CASE("a child's result comes back, with its wall time and peak memory") {
  const ChildResult child = run_in_child([] { return std::string(100000, 'x'); });
  CHECK(child.output == std::string(100000, 'x'));
  CHECK(child.wall_s > 0);
  CHECK(child.peak_rss_mib > 0);
}

TEST_CASE("a child's input and environment errors come back as the same types") {
  CHECK_THROWS_AS(run_in_child([]() -> std::string { throw InputError("bad key 'x'"); }), InputError);
  CHECK_THROWS_WITH(run_in_child([]() -> std::string { throw InputError("bad key 'x'"); }), "bad key 'x'");
  CHECK_THROWS_AS(run_in_child([]() -> std::string { throw EnvironmentError("disk full"); }),
                  EnvironmentError);
  CHECK_THROWS_WITH(run_in_child([]() -> std::string { throw EnvironmentError("disk full"); }), "disk full");
}

TEST_CASE("any other failure of a child is a runtime error") {
  CHECK_THROWS_AS(run_in_child([]() -> std::string { throw std::logic_error("boom"); }), std::runtime_error);
  CHECK_THROWS_AS(run_in_child([]() -> std::string {
                    std::raise(SIGKILL);
                    return "";
                  }),
                  std::runtime_error);
}
