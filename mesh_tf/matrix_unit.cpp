#include "mesh_tf/matrix_unit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

bool runs_on_matrix_unit(const MatmulSizes& sizes) { return sizes.m > 1 && sizes.n > 1 && sizes.k > 1; }

MatrixUnit::MatrixUnit(int side, int arrays_per_core, int row_granule)
    : side_(side), arrays_per_core_(arrays_per_core), row_granule_(row_granule) {
  if (side_ < 8 || side_ > 1024)
    throw InputError(fmt::format("matrix unit: side {} is not plausible: expected 8 to 1024 cells", side_));
  if (arrays_per_core_ < 1 || arrays_per_core_ > 64) {
    throw InputError(
        fmt::format("matrix unit: {} arrays per core is not plausible: expected 1 to 64", arrays_per_core_));
  }
  if (row_granule_ < 1 || row_granule_ > side_) {
    throw InputError(fmt::format("matrix unit: row granule {} is not plausible: expected 1 to the side {}",
                                 row_granule_, side_));
  }
}

double MatrixUnit::cycles_with_stationary_n(const MatmulSizes& s) const {
  const std::int64_t tiles = s.batch * ceil_div(s.k, side_) * ceil_div(s.n, side_);
  const std::int64_t passes = ceil_div(tiles, arrays_per_core_);
  const std::int64_t rows = std::max<std::int64_t>(ceil_div(s.m, row_granule_) * row_granule_, side_);
  return static_cast<double>(passes) * static_cast<double>(rows) + 2.0 * side_;
}

double MatrixUnit::cycles(const MatmulSizes& sizes) const {
  MatmulSizes swapped = sizes;
  std::swap(swapped.m, swapped.n);
  return std::min(cycles_with_stationary_n(sizes), cycles_with_stationary_n(swapped));
}

}  // namespace tpusim::mtf
