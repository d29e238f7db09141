#include "sim/reference.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "sim/schedule.hpp"

namespace tpusim::sim {
namespace {

std::vector<topo::Rank> members_of(const CollectiveRequest& request) {
  std::vector<topo::Rank> ranks;
  for (const auto& group : request.groups) ranks.insert(ranks.end(), group.ranks.begin(), group.ranks.end());
  for (const auto& [src, dst] : request.permutation) {
    ranks.push_back(src);
    ranks.push_back(dst);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

std::vector<float> reduce(const CollectiveRequest& request, const topo::Group& group, const Buffers& inputs) {
  std::vector<double> acc(request.elements, request.op == ReduceOp::sum ? 0.0 : -INFINITY);
  for (const topo::Rank rank : group.ranks) {
    const auto& in = inputs.at(rank);
    for (std::uint64_t i = 0; i < request.elements; ++i) {
      acc[i] = request.op == ReduceOp::sum ? acc[i] + in[i] : std::max(acc[i], static_cast<double>(in[i]));
    }
  }
  return std::vector<float>(acc.begin(), acc.end());
}

}  // namespace

Buffers reference_result(const CollectiveRequest& request, const Buffers& inputs) {
  Buffers expected;
  const ElementRange whole{0, request.elements};
  if (request.kind == CollectiveKind::permute) {
    for (const topo::Rank rank : members_of(request))
      expected[rank] = std::vector<float>(request.elements, 0.0f);
    for (const auto& [src, dst] : request.permutation) expected[dst] = inputs.at(src);
    return expected;
  }
  for (const auto& group : request.groups) {
    const int p = group.size();
    switch (request.kind) {
      case CollectiveKind::allreduce:
      case CollectiveKind::reduce_scatter: {
        const auto reduced = reduce(request, group, inputs);
        for (const topo::Rank rank : group.ranks) expected[rank] = reduced;
        break;
      }
      case CollectiveKind::allgather: {
        std::vector<float> gathered(request.elements);
        for (int i = 0; i < p; ++i) {
          const auto chunk = balanced_part(whole, p, i);
          const auto& in = inputs.at(group.ranks[i]);
          std::copy(in.begin() + chunk.offset, in.begin() + chunk.end(), gathered.begin() + chunk.offset);
        }
        for (const topo::Rank rank : group.ranks) expected[rank] = gathered;
        break;
      }
      case CollectiveKind::alltoall: {
        const std::uint64_t chunk = request.elements / p;
        for (int j = 0; j < p; ++j) {
          std::vector<float> out(request.elements);
          for (int i = 0; i < p; ++i) {
            const auto& in = inputs.at(group.ranks[i]);
            std::copy(in.begin() + j * chunk, in.begin() + (j + 1) * chunk, out.begin() + i * chunk);
          }
          expected[group.ranks[j]] = std::move(out);
        }
        break;
      }
      case CollectiveKind::broadcast:
        for (const topo::Rank rank : group.ranks) expected[rank] = inputs.at(group.ranks.front());
        break;
      default:
        break;
    }
  }
  return expected;
}

DataCheck compare_with_reference(const CollectiveRequest& request, const Buffers& expected,
                                 const Buffers& actual) {
  DataCheck check;
  auto compare_range = [&](const std::vector<float>& want, const std::vector<float>& got,
                           ElementRange range) {
    for (std::uint64_t i = range.offset; i < range.end(); ++i) {
      check.max_abs_error = std::max(check.max_abs_error, std::fabs(static_cast<double>(want[i]) - got[i]));
      check.max_reference_magnitude =
          std::max(check.max_reference_magnitude, std::fabs(static_cast<double>(want[i])));
      ++check.compared;
    }
  };
  const ElementRange whole{0, request.elements};
  if (request.kind == CollectiveKind::reduce_scatter) {
    for (const auto& group : request.groups) {
      for (int i = 0; i < group.size(); ++i) {
        const topo::Rank rank = group.ranks[i];
        compare_range(expected.at(rank), actual.at(rank), balanced_part(whole, group.size(), i));
      }
    }
    return check;
  }
  for (const auto& [rank, want] : expected) compare_range(want, actual.at(rank), whole);
  return check;
}

Buffers random_inputs(const CollectiveRequest& request, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Buffers buffers;
  for (const topo::Rank rank : members_of(request)) {
    auto& buffer = buffers[rank];
    buffer.resize(request.elements);
    for (auto& value : buffer) value = uniform(generator);
  }
  return buffers;
}

}  // namespace tpusim::sim
