// Chunking of buffers into balanced parts, for every size a user can ask for.
#include "sim/schedule.hpp"

#include <catch2/catch.hpp>
#include <limits>

#include "sim/bounds.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;

TEST_CASE("balanced parts tile the range exactly, even for counts near the 64-bit limit") {
  const std::uint64_t huge = std::numeric_limits<std::uint64_t>::max() / 4;  // the largest fp32 count
  for (const std::uint64_t count : {std::uint64_t{10}, std::uint64_t{1} << 61, huge}) {
    for (const std::uint64_t parts : {1, 3, 8, 4096}) {
      const ElementRange whole{5, count};
      std::uint64_t next = whole.offset;
      for (std::uint64_t i = 0; i < parts; ++i) {
        const auto part = balanced_part(whole, parts, i);
        INFO("count " << count << " parts " << parts << " part " << i);
        REQUIRE(part.offset == next);
        REQUIRE(part.count >= count / parts);
        REQUIRE(part.count <= count / parts + 1);
        next = part.end();
      }
      CHECK(next == whole.end());
    }
  }
}

TEST_CASE("a ring allreduce of 8 EiB per member still equals its closed form") {
  const auto topology = topo::preset("ring-8");
  // 2^63 bytes: 2^61 elements, times 8 parts overflows 64 bits
  const auto request = testing::request_along(topology, "allreduce", "ring", "8388608TiB");
  const auto prediction = predict_alpha_beta(topology, request);
  REQUIRE(prediction.uniform);
  CHECK(prediction.closed_form_s == Approx(prediction.time_s).epsilon(1e-9));
}
