// Speedup and efficiency against the smallest point of each series (workloads/sweep/scaling.hpp), against
// figures worked out by hand from made-up step times.
#include "workloads/sweep/scaling.hpp"

#include <catch2/catch.hpp>

using tpusim::workloads::scaling_figures;
using tpusim::workloads::ScalingInput;

namespace {

ScalingInput point(std::size_t index, std::vector<std::string> values, double cores, double flops,
                   double step_s, bool fits = true) {
  return ScalingInput{index, std::move(values), cores, flops, step_s, fits};
}

}  // namespace

TEST_CASE("scaling: strong scaling, the same work on more cores, is the step time ratio") {
  // 1e15 FLOPs a step on 8, 32 and 128 cores in 2 s, 0.6 s and 0.2 s.
  const auto figures =
      scaling_figures({point(0, {"tpu-v2-8"}, 8, 1e15, 2.0), point(1, {"tpu-v2-32"}, 32, 1e15, 0.6),
                       point(2, {"tpu-v2-128"}, 128, 1e15, 0.2)});
  REQUIRE(figures.size() == 3);
  for (const auto& f : figures) {
    REQUIRE(f);
    CHECK(f->kind == "strong");
    CHECK(f->reference_point == 0);
  }
  CHECK(figures[0]->speedup == Approx(1.0));
  CHECK(figures[1]->speedup == Approx(2.0 / 0.6));
  CHECK(figures[1]->efficiency == Approx(2.0 / 0.6 / 4));
  CHECK(figures[2]->speedup == Approx(10.0));
  CHECK(figures[2]->efficiency == Approx(10.0 / 16));
}

TEST_CASE("scaling: weak scaling, the batch growing with the cores, is the throughput per core ratio") {
  // Work per core 1e14 FLOPs; steps of 1 s, 1.1 s and 1.25 s.
  const auto figures =
      scaling_figures({point(0, {"tpu-v2-8"}, 8, 8e14, 1.0), point(1, {"tpu-v2-32"}, 32, 32e14, 1.1),
                       point(2, {"tpu-v2-128"}, 128, 128e14, 1.25)});
  for (const auto& f : figures) {
    REQUIRE(f);
    CHECK(f->kind == "weak");
  }
  CHECK(figures[1]->efficiency == Approx((32e14 / 1.1 / 32) / (8e14 / 1.0 / 8)));
  CHECK(figures[1]->efficiency == Approx(1 / 1.1));
  CHECK(figures[2]->efficiency == Approx(0.8));
  CHECK(figures[2]->speedup == Approx(16 * 0.8));
}

TEST_CASE("scaling: each series against its own smallest point, whatever the point order") {
  // Two strategies (the first key) over two topologies (the second key, which sets the cores), the smallest
  // point of each listed last; a point over its HBM gets nothing and is no reference.
  const auto figures = scaling_figures({
      point(0, {"data", "pod"}, 512, 512e12, 1.0),
      point(1, {"model", "pod"}, 512, 400e12, 0.8),
      point(2, {"data", "v2-32"}, 32, 32e12, 0.9),
      point(3, {"model", "v2-32"}, 32, 25e12, 0.5),
      point(4, {"model", "v2-8"}, 8, 6e12, 0.1, /*fits=*/false),
  });
  REQUIRE(figures[0]);
  CHECK(figures[0]->reference_point == 2);
  CHECK(figures[0]->speedup == Approx((512e12 / 1.0) / (32e12 / 0.9)));
  CHECK(figures[0]->efficiency == Approx(0.9));
  REQUIRE(figures[1]);
  CHECK(figures[1]->reference_point == 3);
  CHECK(figures[1]->efficiency == Approx((400e12 / 0.8 / 512) / (25e12 / 0.5 / 32)));
  CHECK(figures[2]->speedup == Approx(1.0));
  CHECK_FALSE(figures[4]);
}

TEST_CASE("scaling: points on one core count are no scaling study") {
  const auto figures = scaling_figures(
      {point(0, {"batch:8;model:4"}, 32, 1e15, 1.0), point(1, {"batch:4;model:8"}, 32, 1e15, 0.9)});
  CHECK_FALSE(figures[0]);
  CHECK_FALSE(figures[1]);
}
